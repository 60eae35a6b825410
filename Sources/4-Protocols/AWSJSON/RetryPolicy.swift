/// The AWS SDKs' "standard" retry mode, as pure functions (SDK reference guide, "Retry behavior";
/// botocore `retries/standard.py`; soto `RetryPolicy.getRetryWaitTime(error:attempt:)`).
///
/// - At most `maxAttempts` attempts, the first included (3).
/// - Retried: throttling codes and 429; 5xx and transient codes; timeouts; connection failures; a
///   response whose body fails its `x-amz-crc32`.
/// - Never retried: conditional-check failures, validation errors, transaction conflicts, any other 4xx,
///   and anything refused before sending.
/// - Wait before retry `i` (1-based): `random[0,1) × min(maxBackoff, baseDelay × 2^(i-1))` (full jitter),
///   or the service's `Retry-After` when it sent one. The client never sleeps past the call's deadline.
package struct RetryPolicy: Sendable, Hashable {
    /// Attempts allowed in total, the first included.
    package var maxAttempts: Int
    /// The scale of the first backoff. botocore uses 1 s for every service; the Java and Go SDKs use tens of
    /// milliseconds for DynamoDB. Our calls run inside an API request with a deadline, so 50 ms.
    package var baseDelay: Duration
    /// The largest backoff (20 s in every SDK).
    package var maxBackoff: Duration

    package static let standard = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(50), maxBackoff: .seconds(20))

    package init(maxAttempts: Int, baseDelay: Duration, maxBackoff: Duration) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxBackoff = maxBackoff
    }

    /// What kind of failure a retry answers; it decides the retry quota's cost.
    package enum RetryKind: Sendable, Hashable {
        case throttling
        case transient
        case timeout
    }

    package enum Decision: Sendable, Hashable {
        case retry(RetryKind)
        case doNotRetry
    }

    /// Whether to retry after `error` ended attempt number `attempt` (1-based). Pure.
    package func decision(for error: AWSError, attempt: Int) -> Decision {
        guard attempt < maxAttempts else { return .doNotRetry }
        switch error.reason {
        case .throttled: return .retry(.throttling)
        case .serverError, .crcMismatch, .connectionFailed: return .retry(.transient)
        case .timeout: return .retry(.timeout)
        default: return .doNotRetry
        }
    }

    /// How long to wait before the retry that follows attempt `attempt`. Pure.
    /// - Parameters:
    ///   - jitter: a uniform random number in [0, 1).
    ///   - retryAfterSeconds: the service's `Retry-After`, which replaces the computed backoff.
    package func delay(afterAttempt attempt: Int, jitter: Double, retryAfterSeconds: Int? = nil) -> Duration {
        if let retryAfterSeconds { return .seconds(retryAfterSeconds) }
        let exponent = min(max(attempt - 1, 0), 30)
        let ceiling = min(maxBackoff, baseDelay * (1 << exponent))
        return ceiling * min(max(jitter, 0), 1)
    }
}
