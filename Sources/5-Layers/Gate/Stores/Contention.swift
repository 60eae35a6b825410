internal import AttestCore
internal import Synchronization

/// How long to wait before the next try of a write that DynamoDB refused for contention (docs/dynamodb.md,
/// "Contention").
///
/// DynamoDB refuses, without applying, a single write on an item that an ongoing `TransactWriteItems`
/// holds (`TransactionConflictException`), cancels a transaction that meets an item another transaction
/// holds (`TransactionConflict`), and throttles an item past its partition's throughput. The hold lasts
/// one transaction's run (milliseconds), so the answer is to try again soon, with full jitter so the
/// writers that collided do not collide again, for as long as the call's deadline allows. A refusal for
/// contention never applied anything, so trying again is safe; every write here keeps one own-write token
/// or one marker across its tries, so an earlier send that did land is still recognised.
struct Contention: Sendable {
    /// The first wait's scale; each try doubles it up to `cap`.
    var base: Duration = .milliseconds(4)
    var cap: Duration = .milliseconds(128)
    /// No try is started with less than this left before the deadline (an answer could not arrive).
    var minimumTime: Duration = .milliseconds(30)

    static let standard = Contention()

    /// A transaction's cancellation reasons that mean contention: an item held by another transaction, or
    /// throttled (`ThrottlingError` on on-demand tables, `ProvisionedThroughputExceeded` on provisioned ones;
    /// API Reference, `TransactWriteItems`, "CancellationReasons").
    static let cancellationCodes: Set<String> = [
        "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded",
    ]

    /// The wait after try `attempt` (1-based): `jitter × min(cap, base × 2^(attempt-1))`. Pure.
    func delay(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 20)
        let ceiling = min(cap, base * (1 << exponent))
        return ceiling * min(max(jitter, 0), 1)
    }

    /// Waits before the next try; false when the deadline leaves no time for one (the caller then gives up).
    func wait(afterAttempt attempt: Int, random: any RandomSource, deadline: Deadline) async -> Bool {
        let pause = delay(afterAttempt: attempt, jitter: Self.jitter(random))
        guard deadline.remaining - pause > minimumTime else { return false }
        if pause > .zero { try? await Task.sleep(for: pause) }
        ContentionTally.current?.recordRetry()
        return true
    }

    /// A uniform number in [0, 1) from the table's random source.
    static func jitter(_ random: any RandomSource) -> Double {
        let bytes = random.bytes(4)
        let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Double(value) / 4_294_967_296
    }
}

/// Counts, for the work in progress, the writes tried again for contention: the decision line's
/// `storeRetries` (docs/operations.md), which shows contention before it refuses anyone.
package final class ContentionTally: Sendable {
    @TaskLocal package static var current: ContentionTally?
    private let retries = Mutex(0)

    package init() {}

    func recordRetry() { retries.withLock { $0 += 1 } }

    /// Tries repeated for contention so far.
    package var count: Int { retries.withLock { $0 } }
}
