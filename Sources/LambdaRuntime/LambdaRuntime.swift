// The LambdaRuntime module; see docs/architecture.md.
