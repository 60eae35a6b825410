// The Gate module; see docs/architecture.md.
