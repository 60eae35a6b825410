// The Lambda custom runtime entry point (filled in by the runtime issue).
