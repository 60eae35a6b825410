/// When the client tries again by itself: only failures that spent nothing the user could lose and that a
/// moment's wait can cure. A request that never left (no connection), `503 unavailable` (the server's store
/// failed before anything was spent), Lambda's bare `429` on a streamed route (refused before the function
/// ran), a platform 5xx or a lost answer on the challenge endpoint, a key registration that could not be
/// stored, and App Attest's `serverUnavailable` (with the same key and hash).
///
/// Never for "not now" (`quota_exhausted`, `daily_budget_exhausted`: hours away), never for "not this
/// install" (`attestation_required`, whose single recovery is separate; `device_blocked`), never for
/// `upstream_unavailable` or an answer lost after a metered request left (the provider may have billed it).
/// Nothing here ever asks the user anything, so a retry can never turn into a prompt loop.
///
/// At most `maxAttempts` attempts in all; before retry n (1, 2, …) it waits a random time in
/// [0, min(`maxDelay`, `baseDelay` · 2^(n-1))] (full jitter), or the server's `Retry-After` when that is
/// longer and at most `maxRetryAfter`; a longer `Retry-After` ends the retries.
public struct RetryPolicy: Sendable, Hashable {
    public var maxAttempts: Int
    /// Seconds.
    public var baseDelay: Double
    /// Seconds.
    public var maxDelay: Double
    /// Seconds: the longest `Retry-After` the client waits for by itself.
    public var maxRetryAfter: Double

    public init(maxAttempts: Int = 3, baseDelay: Double = 0.25, maxDelay: Double = 4, maxRetryAfter: Double = 10) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(self.baseDelay, maxDelay)
        self.maxRetryAfter = max(0, maxRetryAfter)
    }

    /// One attempt, no retry.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The wait before retry number `retry` (1 for the second attempt), or nil when the policy gives up.
    /// - Parameters:
    ///   - retryAfter: the server's `Retry-After` in seconds, if it sent one.
    ///   - jitter: a number in [0, 1) (random in the client, fixed in tests).
    func delay(beforeRetry retry: Int, retryAfter: Double?, jitter: Double) -> Double? {
        guard retry >= 1, retry < maxAttempts else { return nil }
        let ceiling = min(maxDelay, baseDelay * Double(1 << min(retry - 1, 20)))
        let jittered = ceiling * min(max(jitter, 0), 1)
        guard let retryAfter else { return jittered }
        guard retryAfter >= 0, retryAfter <= maxRetryAfter else { return nil }
        return max(jittered, retryAfter)
    }
}
