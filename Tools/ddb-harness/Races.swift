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
                note: note
            )
        }
    }

    func races() async -> [Line] {
        var lines: [Line] = []
        for resend in [false, true] { lines += await races(resend: resend) }
        return lines
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
