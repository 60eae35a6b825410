// The operator CLI entry point.
