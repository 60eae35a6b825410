// The PlayIntegrity module; see docs/architecture.md.
