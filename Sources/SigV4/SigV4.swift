// The SigV4 module; see docs/architecture.md.
