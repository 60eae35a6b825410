/// One call's retries under the `RetryPolicy`: the count of retries so far, the waiting, and the event.
/// Shared by every step of a call (challenge, registration, metered request), so a call never makes more
/// than `maxAttempts` attempts of anything worth retrying.
struct Retrier: Sendable {
    let policy: RetryPolicy
    let clock: any ClientClock
    let jitter: @Sendable () -> Double
    let onEvent: (@Sendable (ClientEvent) -> Void)?
    private(set) var retries = 0

    init(
        policy: RetryPolicy,
        clock: any ClientClock,
        jitter: @escaping @Sendable () -> Double,
        onEvent: (@Sendable (ClientEvent) -> Void)?
    ) {
        self.policy = policy
        self.clock = clock
        self.jitter = jitter
        self.onEvent = onEvent
    }

    /// Waits before one more attempt and returns true, or returns false when the policy gives up (or the
    /// task was cancelled while waiting).
    /// - Parameters:
    ///   - reason: a bounded slug for the event (`http.503`, `transport.connect_failed`, …).
    ///   - retryAfter: the server's `Retry-After`, in seconds.
    mutating func again(_ reason: String, retryAfter: Double? = nil) async -> Bool {
        guard let delay = policy.delay(beforeRetry: retries + 1, retryAfter: retryAfter, jitter: jitter()) else {
            return false
        }
        retries += 1
        onEvent?(.retry(reason: reason, delay: delay))
        do {
            try await clock.sleep(seconds: delay)
        } catch {
            return false
        }
        return true
    }
}
