// The App module; see docs/architecture.md.
