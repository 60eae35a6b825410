// The DynamoDB module; see docs/architecture.md.
