import AWSJSON
import Testing

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy.standard

    @Test(arguments: [
        (AWSError.Reason.throttled, RetryPolicy.Decision.retry(.throttling)),
        (.serverError, .retry(.transient)),
        (.connectionFailed, .retry(.transient)),
        (.crcMismatch, .retry(.transient)),
        (.timeout, .retry(.timeout)),
        (.conditionalCheckFailed, .doNotRetry),
        (.validation, .doNotRetry),
        (.transactionConflict, .doNotRetry),
        (.clientError, .doNotRetry),
        (.accessDenied, .doNotRetry),
        (.resourceNotFound, .doNotRetry),
        (.malformedResponse, .doNotRetry),
        (.deadlineExceeded, .doNotRetry),
        (.invalidRequest, .doNotRetry),
        (.configuration, .doNotRetry),
    ])
    func decisionByReason(_ reason: AWSError.Reason, _ expected: RetryPolicy.Decision) {
        #expect(policy.decision(for: AWSError(reason), attempt: 1) == expected)
        #expect(policy.decision(for: AWSError(reason), attempt: 2) == expected)
    }

    @Test func threeAttemptsIncludingTheFirst() {
        #expect(policy.maxAttempts == 3)
        #expect(policy.decision(for: AWSError(.throttled), attempt: 3) == .doNotRetry)
        #expect(policy.decision(for: AWSError(.serverError), attempt: 4) == .doNotRetry)
    }

    @Test func fullJitterExponentialBackoff() {
        #expect(policy.delay(afterAttempt: 1, jitter: 0) == .zero)
        #expect(policy.delay(afterAttempt: 1, jitter: 0.5) == .milliseconds(25))
        #expect(policy.delay(afterAttempt: 2, jitter: 0.5) == .milliseconds(50))
        #expect(policy.delay(afterAttempt: 3, jitter: 1) == .milliseconds(200))
        // Capped at maxBackoff however many attempts.
        #expect(policy.delay(afterAttempt: 40, jitter: 1) == .seconds(20))
    }

    @Test func retryAfterReplacesTheBackoff() {
        #expect(policy.delay(afterAttempt: 1, jitter: 0.9, retryAfterSeconds: 2) == .seconds(2))
    }
}

@Suite struct RetryQuotaTests {
    @Test func retriesDrawAndSuccessesRefill() {
        var quota = RetryQuota()
        #expect(quota.acquire(for: .throttling) == 5)
        #expect(quota.acquire(for: .timeout) == 10)
        #expect(quota.available == 485)
        quota.recordSuccess(retryCost: 10)
        #expect(quota.available == 495)
        quota.recordSuccess(retryCost: nil)
        quota.recordSuccess(retryCost: nil)
        quota.recordSuccess(retryCost: nil)
        quota.recordSuccess(retryCost: nil)
        quota.recordSuccess(retryCost: nil)
        quota.recordSuccess(retryCost: nil)
        #expect(quota.available == 500)  // never above capacity
    }

    @Test func anEmptyQuotaStopsRetries() {
        var quota = RetryQuota(available: 7)
        #expect(quota.acquire(for: .timeout) == nil)
        #expect(quota.acquire(for: .transient) == 5)
        #expect(quota.acquire(for: .transient) == nil)
        #expect(quota.available == 2)
    }
}
