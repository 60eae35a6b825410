extension Deadline {
    /// The deadline of the work in progress (the Lambda invocation's, less a margin), set by whoever
    /// starts that work with `Deadline.$current.withValue(_:operation:)`. Stores read it so that no
    /// request outlives the invocation without every protocol method carrying a deadline argument.
    @TaskLocal package static var current: Deadline?

    /// The deadline for one outbound call: `current` when set, else `fallback` from now.
    package static func forCall(fallback: Duration = .seconds(5)) -> Deadline {
        current ?? .after(fallback)
    }
}
