internal import Synchronization

/// Set by an instance's first invocation: Powertools' `cold_start` is true on that invocation's lines only.
final class StartedFlag: Sendable {
    private let started = Mutex(false)

    /// True exactly once: for the first caller.
    func claimFirst() -> Bool {
        started.withLock { started in
            defer { started = true }
            return !started
        }
    }
}
