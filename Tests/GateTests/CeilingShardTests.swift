import AttestCore
import DynamoDB
import TestSupport
import Testing

@testable import Gate

/// The ceiling split over shards (docs/gate.md, "The ceiling under contention"): the shares add up to the
/// limits, a call is refused only when the day's total has no room, and give-backs go back where the units
/// were taken.
@Suite struct CeilingShardTests {
    static let day = "2026-12-06"

    @Test(arguments: [0, 1, 7, 10, 1_000, 999_999], [1, 2, 3, 8, 256])
    func theSharesAddUpToTheLimitAndDifferByAtMostOne(total: Int, count: Int) {
        let shares = (0..<count).map { DynamoCeilingStore.share(Int64(total), shard: $0, of: count) }
        #expect(shares.reduce(0, +) == Int64(total))
        #expect((shares.max() ?? 0) - (shares.min() ?? 0) <= 1)
    }

    @Test func contentionWaitsGrowWithFullJitterUpToTheCap() {
        let contention = Contention.standard
        #expect(contention.delay(afterAttempt: 1, jitter: 0.999) < .milliseconds(4))
        #expect(contention.delay(afterAttempt: 3, jitter: 0.5) == .milliseconds(8))
        #expect(contention.delay(afterAttempt: 30, jitter: 0.999) < .milliseconds(128))
        #expect(contention.delay(afterAttempt: 30, jitter: 0) == .zero)
    }

    static func limits(calls: Int64, budget: Int64, worst: Int64, shards: Int) -> DynamoCeilingStore.Limits {
        DynamoCeilingStore.Limits(day: day, calls: calls, budget: budget, worst: worst, shards: shards)
    }

    static func row(calls: Int, cost: Int64) -> Item { ["calls": .number(Int64(calls)), "cost": .number(cost)] }

    @Test func aWorstCaseNoShardHoldsAloneIsTakenFromSeveralWithinEachShare() throws {
        // 4 shards of 250 micro-USD and 5 calls each; 100, 150, 200 and 240 used: 310 left in all.
        let limits = Self.limits(calls: 20, budget: 1_000, worst: 300, shards: 4)
        let rows = [
            0: Self.row(calls: 1, cost: 100), 1: Self.row(calls: 1, cost: 150), 2: Self.row(calls: 1, cost: 200),
            3: Self.row(calls: 1, cost: 240),
        ]
        let plan = try #require(DynamoCeilingStore.plan(limits, rows: rows))
        #expect(plan.reduce(0) { $0 + $1.micros } == 300)
        #expect(plan.reduce(0) { $0 + $1.calls } == 1)
        for part in plan {
            let used = rows[part.shard]?["cost"]?.intValue ?? 0
            #expect(used + part.micros <= limits.budgetShare(part.shard), "\(part)")
        }
        // 290 left in all: a worst case of 300 is refused.
        #expect(
            DynamoCeilingStore.plan(
                Self.limits(calls: 20, budget: 1_000, worst: 300, shards: 4),
                rows: [
                    0: Self.row(calls: 1, cost: 250), 1: Self.row(calls: 1, cost: 250),
                    2: Self.row(calls: 1, cost: 200),
                    3: Self.row(calls: 1, cost: 10),
                ]
            ) == nil
        )
        // Money room but no call room anywhere: refused as calls.
        let full = [
            0: Self.row(calls: 5, cost: 0), 1: Self.row(calls: 5, cost: 0), 2: Self.row(calls: 5, cost: 0),
            3: Self.row(calls: 5, cost: 0),
        ]
        #expect(DynamoCeilingStore.plan(limits, rows: full) == nil)
        #expect(DynamoCeilingStore.refusal(limits, rows: full) == .callsReached)
    }

    @Test func aGiveBackReturnsToTheShardsThatHoldTheReservation() {
        let reservation = CeilingReservation(
            day: Self.day,
            used: 1,
            warned: false,
            callID: "c",
            costMicros: 300,
            parts: [
                CeilingPart(shard: 2, calls: 1, micros: 100), CeilingPart(shard: 0, calls: 0, micros: 150),
                CeilingPart(shard: 3, calls: 0, micros: 50),
            ]
        )
        let settle = DynamoCeilingStore.giveBackParts(reservation, calls: 0, micros: 220)
        #expect(settle.map(\.shard) == [2, 0, 3])
        #expect(settle.map(\.micros) == [100, 120, 0])
        let release = DynamoCeilingStore.giveBackParts(reservation, calls: 1, micros: 300)
        #expect(release.map(\.calls) == [1, 0, 0])
        #expect(release.map(\.micros) == [100, 150, 50])
        let excess = DynamoCeilingStore.giveBackParts(reservation, calls: 0, micros: -40)
        #expect(excess.map(\.micros) == [-40, 0, 0])
    }

    /// Today's rows summed over `shards`.
    static func total(_ table: GateTable, shards: Int) async throws -> (calls: Int64, cost: Int64) {
        var total: (calls: Int64, cost: Int64) = (0, 0)
        for shard in 0..<shards {
            let row = try await table.client.getItem(
                table.table,
                key: DynamoCeilingStore.key(day, shard: shard),
                deadline: .after(.seconds(5))
            )
            total.calls += row?["calls"]?.intValue ?? 0
            total.cost += row?["cost"]?.intValue ?? 0
        }
        return total
    }

    /// With `resent`, every write and transaction is sent twice, its first answer dropped (a lost answer).
    @Test(arguments: [false, true])
    func overFourShardsTheMoneyCeilingAdmitsExactlyWhatTheBudgetHolds(resent: Bool) async throws {
        let hook = resent ? ResendingTransport(resending: ["UpdateItem", "TransactWriteItems"]) : nil
        let table = try await MotoTable.make(hook: hook)
        let store = DynamoCeilingStore(table: table, shards: 4)
        // 1,000 micro-USD over 4 shards of 250: no shard alone holds a worst case of 300, the day holds 3.
        var held: [CeilingReservation] = []
        for _ in 0..<5 {
            if case .reserved(let reservation) = try await store.reserve(
                day: Self.day,
                limit: 0,
                worstCaseMicros: 300,
                budgetMicros: 1_000
            ) {
                held.append(reservation)
            }
        }
        #expect(held.count == 3)
        #expect(try await Self.total(table, shards: 4).cost == 900)
        // Each settles to 100 once, on the shards it was taken from.
        for reservation in held {
            #expect(try await store.giveBack(reservation, calls: 0, micros: 200))
            #expect(try await store.giveBack(reservation, calls: 0, micros: 200))
        }
        #expect(try await Self.total(table, shards: 4).cost == 300)
        if let hook { #expect(hook.resent > 0) }
    }

    @Test func racingInstancesNeverPassTheCallLimitAndFillIt() async throws {
        let table = try await MotoTable.make()
        let admitted = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                let sibling = try MotoTable.sibling(of: table)
                group.addTask {
                    let store = DynamoCeilingStore(table: sibling, shards: 3)
                    var count = 0
                    for _ in 0..<4 where try await store.reserve(day: Self.day, limit: 10) != nil { count += 1 }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(admitted == 10)
        #expect(try await Self.total(table, shards: 3).calls == 10)
    }
}
