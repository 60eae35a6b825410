// The DeviceCheck module; see docs/architecture.md.
