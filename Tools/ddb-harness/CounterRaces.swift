import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import Gate
import HTTPClient
import Synchronization

/// Counter races: two genuine calls of one App Attest key racing on its counter. The product accepts a
/// call whose conditional counter write is refused while the row still holds the same key (`.behind`),
/// because that call has just spent its own single-use challenge (docs/gate.md, "Counter races"). Each
/// check runs the product rule and, as its control, the pre-fix rule ("the counter must advance") on the
/// very same write outcomes: the control must refuse a genuine call, or the check shows nothing.
extension Runner {
    func counterRaces() async -> [Line] {
        [
            await counterCheck(
                "counter: answer lost, a parallel call advances, then the resend",
                method: "interleaving transport (send, other call, resend)"
            ) { ids, key in
                let transport = InterleavingTransport()
                let client = DynamoDBClient(
                    configuration: try Harness.configuration(endpoint: harness.moto),
                    transport: transport,
                    random: SecureRandom()
                )
                let writer = DynamoAppAttestKeyStore(table: harness.gateTable(client))
                let other = Mutex<CounterAdvance?>(nil)
                transport.interleave(whenBodyContains: "counter_write_id") {
                    let advanced = try await DynamoAppAttestKeyStore(table: harness.plain())
                        .advanceCounter(deviceID: ids.id, keyId: key.keyId, to: 2, appId: nil)
                    other.withLock { $0 = advanced }
                }
                let first = try await writer.advanceCounter(deviceID: ids.id, keyId: key.keyId, to: 1, appId: nil)
                guard transport.resent == 1, let second = other.withLock({ $0 }) else {
                    throw HarnessError("the interleave did not happen")
                }
                return [first, second]
            },
            await counterCheck("counter: out of order (2 lands before 1)", method: "two calls, in that order") {
                ids,
                key in
                let store = DynamoAppAttestKeyStore(table: try harness.plain())
                let two = try await store.advanceCounter(deviceID: ids.id, keyId: key.keyId, to: 2, appId: nil)
                let one = try await store.advanceCounter(deviceID: ids.id, keyId: key.keyId, to: 1, appId: nil)
                return [two, one]
            },
            await counterCheck(
                "race: 10 assertions of one key (counters 1…10) in parallel",
                method: "10 parallel clients, each send resent",
                controlMustBreak: false
            ) { ids, key in
                var tables: [GateTable] = []
                for _ in 0..<10 { tables.append(try racer(resend: true)) }
                return try await withThrowingTaskGroup(of: CounterAdvance.self) { group in
                    for (index, table) in tables.enumerated() {
                        group.addTask {
                            try await DynamoAppAttestKeyStore(table: table)
                                .advanceCounter(deviceID: ids.id, keyId: key.keyId, to: UInt32(index + 1), appId: nil)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            },
            await counterRebindBound(),
        ]
    }

    /// Binds a fresh key, runs `calls` (each one genuine call's counter write), then judges: every call
    /// accepted under the product rule and the counter at the highest one; the pre-fix rule refuses some.
    private func counterCheck(
        _ name: String,
        method: String,
        controlMustBreak: Bool = true,
        calls: @escaping @Sendable (RunIDs, StoredAppAttestKey) async throws -> [CounterAdvance]
    ) async -> Line {
        let ids = RunIDs.next()
        let bound = key(3)
        do {
            _ = try await DynamoAppAttestKeyStore(table: harness.plain()).bind(
                deviceID: ids.id,
                key: bound,
                receipt: []
            )
            let outcomes = try await calls(ids, bound)
            let stored = try await harness.row(Keys.device(ids.id, "ATTEST_KEY"))?["counter"]?.intValue ?? -1
            let accepted = outcomes.filter(\.acceptedOnSpentChallenge).count
            let strict = outcomes.filter { $0 == .advanced }.count
            let controlBroke = strict < outcomes.count
            return Line(
                passed: accepted == outcomes.count && stored == Int64(outcomes.count)
                    && (controlBroke || !controlMustBreak),
                write: name,
                method: method,
                outcome: "product: \(accepted) of \(outcomes.count) genuine calls accepted, counter = \(stored)",
                control: "pre-fix rule (the counter must advance) accepts \(strict) of \(outcomes.count)"
                    + (controlBroke ? ": a genuine call gets 403" : controlMustBreak ? ": DID NOT BREAK" : "")
            )
        } catch {
            return Line(passed: false, write: name, method: method, outcome: "harness error: \(error)", control: "-")
        }
    }

    /// The bound of the rule: a key rebound after verification, before the counter write lands, is refused.
    private func counterRebindBound() async -> Line {
        let name = "counter: key rebound before the write lands"
        let method = "interleaving transport (rebind, then the write)"
        let ids = RunIDs.next()
        let old = key(4)
        do {
            _ = try await DynamoAppAttestKeyStore(table: harness.plain()).bind(deviceID: ids.id, key: old, receipt: [])
            let transport = InterleavingTransport()
            let client = DynamoDBClient(
                configuration: try Harness.configuration(endpoint: harness.moto),
                transport: transport,
                random: SecureRandom()
            )
            transport.interleave(whenBodyContains: "counter_write_id", resend: false) {
                _ = try await DynamoAppAttestKeyStore(table: harness.plain())
                    .bind(deviceID: ids.id, key: key(5), receipt: [])
            }
            let outcome = try await DynamoAppAttestKeyStore(table: harness.gateTable(client))
                .advanceCounter(deviceID: ids.id, keyId: old.keyId, to: 1, appId: nil)
            return Line(
                passed: outcome == .keyReplaced && !outcome.acceptedOnSpentChallenge,
                write: name,
                method: method,
                outcome:
                    "product: the old key's resend found \(outcome), accepted: \(outcome.acceptedOnSpentChallenge)",
                control: "- (a refusal under both rules)"
            )
        } catch {
            return Line(passed: false, write: name, method: method, outcome: "harness error: \(error)", control: "-")
        }
    }
}

/// Once: the next request whose body contains `marker` is sent, `between` runs while its answer is held
/// back, and it is sent again; the caller gets the second answer (an answer lost, another writer first).
final class InterleavingTransport: HTTPTransport {
    private let inner = CurlTransport()
    private let pending = Mutex<(marker: String, resend: Bool, between: @Sendable () async throws -> Void)?>(nil)
    private let count = Mutex(0)

    func interleave(
        whenBodyContains marker: String,
        resend: Bool = true,
        _ between: @escaping @Sendable () async throws -> Void
    ) {
        pending.withLock { $0 = (marker, resend, between) }
    }

    var resent: Int { count.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let text = String(decoding: request.body, as: UTF8.self)
        let interleaved = pending.withLock { pending -> (resend: Bool, between: @Sendable () async throws -> Void)? in
            guard let (marker, resend, between) = pending, text.contains(marker) else { return nil }
            pending = nil
            return (resend, between)
        }
        guard let (resend, between) = interleaved else { return try await inner.send(request) }
        if resend { _ = try await inner.send(request) }
        try await between()
        if resend { count.withLock { $0 += 1 } }
        return try await inner.send(request)
    }
}
