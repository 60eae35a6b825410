// The CBOR module; see docs/architecture.md.
