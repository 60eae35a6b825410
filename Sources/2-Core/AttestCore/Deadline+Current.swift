extension Deadline {
    /// The deadline of the work in progress (the Lambda invocation's, less a margin), set by whoever
    /// starts that work with `Deadline.$current.withValue(_:operation:)`. Stores read it so that no
    /// request outlives the invocation without every protocol method carrying a deadline argument.
    @TaskLocal package static var current: Deadline?

    /// The deadline for one outbound call: `current` when set, else `fallback` from now (tools and tests,
    /// which have no invocation deadline).
    package static func forCall(fallback: Duration = .seconds(15)) -> Deadline {
        current ?? .after(fallback)
    }
}

extension Deadline {
    /// The total timeout for one outbound call allowed at most `cap`: never past the current work's deadline
    /// when one is set (the Lambda invocation's), so a provider that hangs cannot outlive the invocation.
    /// Zero or negative once the deadline has passed (the transport then times out at once).
    package static func timeout(atMost cap: Duration) -> Duration {
        guard let current else { return cap }
        return min(cap, current.remaining)
    }
}
