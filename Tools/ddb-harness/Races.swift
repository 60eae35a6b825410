import AWSJSON
import AttestCore
import DynamoDB
import FoundationEssentials
import Gate
import TestSupport

/// Many Lambda instances (one client each) racing on one row. Each race runs twice: as the issue asks (plain
/// parallel calls, counted), and with every racer's sends also resent by a resending transport. The resent variant
/// counts for single-winner writes (spend, counter); for the shared counters (ceiling, allowance) it is
/// printed as a NOTE: with one token per row, a resend that finds another racer's token is judged against
/// it (OwnWrite.swift "Limits"), so calls get counted without being admitted (docs/resend-harness.md).
extension Runner {
    func racer(resend: Bool) throws -> GateTable {
        harness.gateTable(
            try harness.client(transport: Harness.wire(RecordingTransport(), .ownWriteTokens, resend: resend).transport)
        )
    }

    func race(
        _ name: String,
        racers: Int,
        expected: Int,
        resend: Bool,
        note: Bool = false,
        prepare: (RunIDs) async throws -> Void,
        attempt: @escaping @Sendable (GateTable, RunIDs) async throws -> Bool,
        stored: (RunIDs) async throws -> (Int, String)
    ) async -> Line {
        let ids = RunIDs.next()
        do {
            try await prepare(ids)
            var tables: [GateTable] = []
            for _ in 0..<racers { tables.append(try racer(resend: resend)) }
            let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
                for table in tables { group.addTask { try await attempt(table, ids) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            let (value, attribute) = try await stored(ids)
            var outcome = "\(wins) won, \(attribute) = \(value) (expected \(expected))"
            if note && wins < value {
                outcome += "; KNOWN LIMIT: \(value - wins) calls counted but told they were refused"
            }
            return Line(
                passed: wins == expected && value == expected,
                write: "race: \(name)",
                method: "\(racers) parallel clients" + (resend ? ", each send resent" : ""),
                outcome: outcome,
                control: "- (a race has no resend to control for)",
                note: note
            )
        } catch {
            return Line(
                passed: false,
                write: "race: \(name)",
                method: "parallel",
                outcome: "harness error: \(error)",
                control: "-",
                note: false  // an error (e.g. a ceiling over its budget) is never a known limit
            )
        }
    }

    func races() async -> [Line] {
        var lines: [Line] = []
        for resend in [false, true] { lines += await races(resend: resend) }
        for resend in [false, true] { lines.append(await tierRace(rounds: 10, resend: resend)) }
        lines.append(await releaseRace(releasers: 8))
        lines += await counterRaces()
        return lines
    }

    /// N releases of N distinct reservations on one ceiling row, in parallel, each resent after
    /// it landed, with the resend held back a little so other releasers write the row in between (the
    /// interleaving that made a one-token-per-row release apply twice). The product must end at exactly
    /// reserved − N; the control (the same decrement without its marker) must end lower.
    func releaseRace(releasers n: Int) async -> Line {
        func run(_ safety: WriteSafety) async throws -> (calls: Int, resent: Int, removed: Int) {
            let ids = RunIDs.next()
            let setup = DynamoCeilingStore(table: try harness.plain())
            var held: [CeilingReservation] = []
            for _ in 0..<(2 * n) {
                guard let reservation = try await setup.reserve(day: ids.day, limit: 10 * n) else {
                    throw HarnessError("setup: ceiling reservation refused")
                }
                held.append(reservation)
            }
            // One writer per releaser; each resend held 40 ms, so the other releasers land before it goes out.
            let wires = (0..<n).map { _ in
                Harness.wire(RecordingTransport(), safety, resend: true, hold: .milliseconds(40))
            }
            let stores = try wires.map { wire in
                DynamoCeilingStore(table: harness.gateTable(try harness.client(transport: wire.transport)))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<n {
                    let store = stores[index]
                    let reservation = held[index]
                    group.addTask { try await store.release(reservation) }
                }
                try await group.waitForAll()
            }
            let calls = Int(try await harness.row(Keys.ceiling(ids.day))?["calls"]?.intValue ?? -1)
            let resent = wires.reduce(0) { $0 + ($1.resending?.resent ?? 0) }
            let removed = wires.reduce(0) { $0 + ($1.tokenless?.stripped ?? 0) }
            return (calls, resent, removed)
        }
        let expected = n
        do {
            let product = try await run(.ownWriteTokens)
            let control = try await run(.tokensRemoved)
            let passed =
                product.calls == expected && product.resent >= n && control.calls < expected && control.removed >= n
            return Line(
                passed: passed,
                write: "race: \(n) releases of \(2 * n) reserved units, each resent after landing",
                method: "\(n) parallel clients, resend held 40 ms",
                outcome: "calls = \(product.calls) (expected \(expected) = \(2 * n) − \(n), never lower) "
                    + "[resent \(product.resent)×]",
                control: "decrement without its marker: calls = \(control.calls) "
                    + (control.calls < expected ? "(applied twice: broke as it must)" : "— CONTROL DID NOT BREAK")
                    + " [resent \(control.resent)×, \(control.removed) markers removed on the wire]"
            )
        } catch {
            return Line(
                passed: false,
                write: "race: releases",
                method: "parallel",
                outcome: "harness error: \(error)",
                control: "-"
            )
        }
    }

    func races(resend: Bool) async -> [Line] {
        let now = self.now
        var lines: [Line] = []
        let spends = ChallengeBox()
        lines.append(
            await race(
                "20 parallel spends of one challenge",
                racers: 20,
                expected: 1,
                resend: resend,
                prepare: { ids in
                    spends.bytes = try await DynamoChallengeStore(table: harness.plain())
                        .issue(deviceID: ids.id, replacingSpent: true, now: now).bytes
                },
                attempt: { table, ids in
                    try await DynamoChallengeStore(table: table).spend(
                        deviceID: ids.id,
                        challenge: spends.bytes,
                        now: now
                    )
                },
                stored: { ids in
                    let row = try await harness.row(
                        Keys.device(ids.id, "ATTEST_CHALLENGE#\(Bytes.base64URL(spends.bytes))")
                    )
                    return (row?["spent_by"] == nil ? 0 : 1, "rows marked spent")
                }
            )
        )
        let bound = key(1)
        lines.append(
            await race(
                "50 parallel copies of one assertion (counter 0 → 1)",
                racers: 50,
                expected: 1,
                resend: resend,
                prepare: { ids in
                    _ = try await DynamoAppAttestKeyStore(table: harness.plain()).bind(
                        deviceID: ids.id,
                        key: bound,
                        receipt: []
                    )
                },
                attempt: { table, ids in
                    try await DynamoAppAttestKeyStore(table: table).advanceCounter(
                        deviceID: ids.id,
                        keyId: bound.keyId,
                        to: 1
                    )
                },
                stored: { ids in
                    (
                        Int(try await harness.row(Keys.device(ids.id, "ATTEST_KEY"))?["counter"]?.intValue ?? -1),
                        "counter"
                    )
                }
            )
        )
        let k = 6
        lines.append(
            await race(
                "ceiling K=\(k) under \(3 * k) parallel reservations",
                racers: 3 * k,
                expected: k,
                resend: resend,
                note: resend,
                prepare: { _ in },
                attempt: { table, ids in
                    try await DynamoCeilingStore(table: table).reserve(day: ids.day, limit: k) != nil
                },
                stored: { ids in (Int(try await harness.row(Keys.ceiling(ids.day))?["calls"]?.intValue ?? -1), "calls")
                }
            )
        )
        lines.append(
            await race(
                "unproven pool K=\(k) under \(3 * k) parallel reservations",
                racers: 3 * k,
                expected: k,
                resend: resend,
                note: resend,
                prepare: { _ in },
                attempt: { table, ids in
                    try await DynamoCeilingStore.unprovenPool(table: table).reserve(day: ids.day, limit: k) != nil
                },
                stored: { ids in
                    (Int(try await harness.row(Keys.unproven(ids.day))?["calls"]?.intValue ?? -1), "calls")
                }
            )
        )
        let shards = 4
        lines.append(
            await race(
                "ceiling K=\(2 * k) over \(shards) shards under \(6 * k) parallel reservations",
                racers: 6 * k,
                expected: 2 * k,
                resend: resend,
                note: resend,
                prepare: { _ in },
                attempt: { table, ids in
                    try await DynamoCeilingStore(table: table, shards: shards).reserve(day: ids.day, limit: 2 * k)
                        != nil
                },
                stored: { ids in
                    var calls = 0
                    for shard in 0..<shards {
                        calls += Int(
                            try await harness.row(Keys.ceiling(ids.day, shard: shard))?["calls"]?.intValue ?? 0
                        )
                    }
                    return (calls, "calls over the shards")
                }
            )
        )
        let budget: Int64 = 6_000
        lines.append(
            await race(
                "money ceiling of 6 worst cases (1,000 µ$) under 18 parallel reservations",
                racers: 18,
                expected: 6,
                resend: resend,
                note: resend,
                prepare: { _ in },
                attempt: { table, ids in
                    let attempt = try await DynamoCeilingStore(table: table).reserve(
                        day: ids.day,
                        limit: 0,
                        worstCaseMicros: 1_000,
                        budgetMicros: budget
                    )
                    if case .reserved = attempt { return true }
                    return false
                },
                stored: { ids in
                    let cost = try await harness.row(Keys.ceiling(ids.day))?["cost"]?.intValue ?? -1
                    guard cost <= budget else { throw HarnessError("cost \(cost) over the budget \(budget)") }
                    return (Int(cost / 1_000), "cost / worst case")
                }
            )
        )
        let n = 5
        lines.append(
            await race(
                "allowance N=\(n) under \(3 * n) parallel calls from one device",
                racers: 3 * n,
                expected: n,
                resend: resend,
                note: resend,
                prepare: { _ in },
                attempt: { table, ids in
                    try await DynamoAllowanceStore(table: table)
                        .reserve(subject: .device(ids.id), feature: "generation", day: ids.day, limit: n) != nil
                },
                stored: { ids in
                    (Int(try await harness.row(Keys.allowance(ids.id, ids.day))?["count"]?.intValue ?? -1), "count")
                }
            )
        )
        return lines
    }
}

/// The challenge issued in `prepare`, read by the racers.
final class ChallengeBox: @unchecked Sendable {
    // Written once before the racers start, read only after: the task group orders the accesses.
    var bytes: [UInt8] = []
}
