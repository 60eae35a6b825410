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
