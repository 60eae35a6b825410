internal import Synchronization

/// The standard mode's retry quota (token bucket), a pure state machine: retries draw from it, successes
/// refill it, so a service that keeps failing quickly stops being retried at all.
///
/// Values from the SDK reference guide: capacity 500, a retry costs 5 (10 after a timeout), a success
/// gives back what its retry cost, or 1 when it needed no retry.
package struct RetryQuota: Sendable, Hashable {
    package static let capacity = 500
    package static let retryCost = 5
    package static let timeoutRetryCost = 10
    package static let noRetryIncrement = 1

    package private(set) var available = RetryQuota.capacity

    package init(available: Int = RetryQuota.capacity) { self.available = available }

    /// Takes the cost of one retry of `kind`; nil (nothing taken) when the bucket cannot pay for it.
    package mutating func acquire(for kind: RetryPolicy.RetryKind) -> Int? {
        let cost = kind == .timeout ? Self.timeoutRetryCost : Self.retryCost
        guard available >= cost else { return nil }
        available -= cost
        return cost
    }

    /// Records a successful call; `retryCost` is what its last retry took, nil when it needed none.
    package mutating func recordSuccess(retryCost: Int?) {
        available = min(Self.capacity, available + (retryCost ?? Self.noRetryIncrement))
    }
}

/// One quota shared by every call of a client (and its copies).
package final class SharedRetryQuota: Sendable {
    private let state = Mutex(RetryQuota())

    package init() {}

    package func acquire(for kind: RetryPolicy.RetryKind) -> Int? { state.withLock { $0.acquire(for: kind) } }
    package func recordSuccess(retryCost: Int?) { state.withLock { $0.recordSuccess(retryCost: retryCost) } }
    package var available: Int { state.withLock { $0.available } }
}
