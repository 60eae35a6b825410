import Testing

@testable import AttestGateClient

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 3, baseDelay: 0.25, maxDelay: 4, maxRetryAfter: 10)

    @Test func fullJitterUpToAnExponentialCeilingAndNoMoreThanMaxAttempts() {
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, jitter: 1) == 0.25)
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil, jitter: 1) == 0.5)
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil, jitter: 0) == 0)
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, jitter: 1) == nil)
        #expect(policy.delay(beforeRetry: 0, retryAfter: nil, jitter: 1) == nil)
    }

    @Test func retryAfterIsHonouredUpToItsBoundAndALongerOneEndsTheRetries() {
        #expect(policy.delay(beforeRetry: 1, retryAfter: 2, jitter: 0.5) == 2)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 0, jitter: 1) == 0.25)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 11, jitter: 0.5) == nil)
    }

    @Test func noneNeverRetries() {
        #expect(RetryPolicy.none.delay(beforeRetry: 1, retryAfter: nil, jitter: 0) == nil)
    }
}
