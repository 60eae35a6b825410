// The AppAttest module; see docs/architecture.md.
