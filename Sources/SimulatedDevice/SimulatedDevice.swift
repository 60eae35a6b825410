// The SimulatedDevice module; see docs/architecture.md.
