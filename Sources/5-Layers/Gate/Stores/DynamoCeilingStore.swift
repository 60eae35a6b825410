internal import AttestCore
package import DynamoDB

/// The environment's daily ceiling on the table, split over `shards` rows so that no single item carries
/// the environment's whole write rate (docs/dynamodb.md, "Capacity"):
/// `AI_BUDGET#{day}` / `TOTAL` is shard 0 (the only one with `AI_CEILING_SHARDS=1`), `AI_BUDGET#{day}#{k}` /
/// `TOTAL` shard k, each with `calls`, `cost` (micro-dollars reserved), `settled` (micro-dollars the settled
/// calls cost), `warned`, `cost_warned` and, on a day an operator raised, `raise` (`CeilingRaise`).
///
/// Each shard holds an exact share of both limits (`share`: the shares add up to the limit), and each
/// reservation is one conditional write on one shard that keeps that shard within its share, so the sum
/// over shards never passes the limit, at any moment. A reservation starts at a random shard and moves on
/// when a shard is full, held by a transaction or throttled. When no single shard has room for the call's
/// worst case but the shards together do, one transaction takes it from several (`reserveAcross`), so a
/// call is refused only when the day's total has no room for it.
package struct DynamoCeilingStore: CeilingStore {
    let table: GateTable
    /// How many rows the day's ceiling is split over (`AI_CEILING_SHARDS`).
    let shards: Int
    let giveBack: GiveBack
    /// The rows' partition key prefix: `AI_BUDGET` for the environment's ceiling, `AI_UNPROVEN` for the
    /// unproven pool's sub-ceiling (docs/gate.md, "The unproven pool").
    let prefix: String
    let retentionSeconds: Int64 = 3 * 86_400
    /// The last raise this instance saw on its rows, so its next call assumes it (`CeilingRaise`).
    let raises = RaiseMemory()

    static let ceilingPrefix = "AI_BUDGET"
    static let unprovenPrefix = "AI_UNPROVEN"

    /// The environment's ceiling.
    package init(table: GateTable, shards: Int = 1) {
        self.init(table: table, shards: shards, prefix: Self.ceilingPrefix, markerKind: "CEILING")
    }

    /// The unproven pool's sub-ceiling: its own rows and markers, the same writes.
    package static func unprovenPool(table: GateTable) -> DynamoCeilingStore {
        DynamoCeilingStore(table: table, shards: 1, prefix: unprovenPrefix, markerKind: "UNPROVEN")
    }

    init(table: GateTable, shards: Int, prefix: String, markerKind: String) {
        self.table = table
        self.shards = max(1, shards)
        self.prefix = prefix
        giveBack = GiveBack(table: table, kind: markerKind)
    }

    /// Shard `shard`'s row of `day` on the environment's ceiling (tools and tests read the rows by it).
    package static func key(_ day: String, shard: Int = 0) -> Item { key(ceilingPrefix, day, shard: shard) }

    /// The unproven pool's row of `day`.
    package static func unprovenKey(_ day: String) -> Item { key(unprovenPrefix, day, shard: 0) }

    static func key(_ prefix: String, _ day: String, shard: Int) -> Item {
        GateTable.key(shard == 0 ? "\(prefix)#\(day)" : "\(prefix)#\(day)#\(shard)", "TOTAL")
    }

    /// Shard `shard`'s row of `day` in this store.
    func row(_ day: String, shard: Int = 0) -> Item { Self.key(prefix, day, shard: shard) }

    /// Shard `shard`'s exact part of `total` over `count` shards: the first `total % count` shards hold one
    /// more, so the parts add up to `total`. Pure.
    static func share(_ total: Int64, shard: Int, of count: Int) -> Int64 {
        let count = Int64(max(1, count))
        return total / count + (Int64(shard) < total % count ? 1 : 0)
    }

    /// One day's limits as this call needs them.
    struct Limits {
        let day: String
        let calls: Int64
        let budget: Int64
        let worst: Int64
        let shards: Int
        /// The day's raise the limits come from (nil: the configured ones), named in every condition.
        var raise: CeilingRaise? = nil

        func callShare(_ shard: Int) -> Int64 { DynamoCeilingStore.share(calls, shard: shard, of: shards) }
        func budgetShare(_ shard: Int) -> Int64 { DynamoCeilingStore.share(budget, shard: shard, of: shards) }

        /// Whether shard `shard` could ever take this call on its own.
        func fitsAlone(_ shard: Int) -> Bool {
            (calls == 0 || callShare(shard) > 0) && (budget == 0 || budgetShare(shard) >= worst)
        }
    }

    package func reserve(
        day: String,
        limit: Int,
        worstCaseMicros: Int64,
        budgetMicros: Int64
    ) async throws -> CeilingAttempt {
        var assumed = raises.assumed(day: day)
        // A raise changing between this call's writes sends it round again, against the raise it found.
        for _ in 0..<4 {
            let limits = Limits(
                day: day,
                calls: assumed?.calls ?? Int64(max(0, limit)),
                budget: assumed?.micros ?? max(0, budgetMicros),
                worst: max(0, worstCaseMicros),
                shards: shards,
                raise: assumed
            )
            if limits.budget > 0, limits.worst > limits.budget { return .costReached }
            switch try await reserve(limits) {
            case .decided(let attempt): return attempt
            case .raiseChanged(let seen):
                assumed = seen
                raises.remember(seen, day: day)
            }
        }
        throw StoreError("ceiling_reserve", .contended, detail: "the day's raise changed under every attempt")
    }

    /// A reservation's end, or the raise a row holds when it is not the one the limits assumed.
    enum Decision {
        case decided(CeilingAttempt)
        case raiseChanged(CeilingRaise?)
    }

    /// The `raise` a row holds; nil when none.
    /// - Throws: `StoreError` for a value that is not a raise (never read as none: the row would refuse forever).
    static func raise(in row: Item) throws(StoreError) -> CeilingRaise? {
        guard let value = row["raise"] else { return nil }
        guard let text = value.stringValue, let raise = CeilingRaise(attribute: text) else {
            throw StoreError("ceiling_reserve", .failed, detail: "malformed raise on a ceiling row")
        }
        return raise
    }

    /// One call's reservation: a shard alone, or several at once at the end of a day.
    func reserve(_ limits: Limits) async throws(StoreError) -> Decision {
        let deadline = Deadline.forCall()
        let start = shards == 1 ? 0 : Int(Contention.jitter(table.random) * Double(shards)) % shards
        var rows: [Int: Item] = [:]  // shards that refused this call, as they stood
        var round = 0
        var acrossTries = 0
        while true {
            round += 1
            var contended = false
            for offset in 0..<shards {
                let shard = (start + offset) % shards
                guard rows[shard] == nil, limits.fitsAlone(shard) else { continue }
                switch try await reserve(on: shard, limits, deadline: deadline) {
                case .reserved(let reservation): return .decided(.reserved(reservation))
                case .refused(let row):
                    let raise = try Self.raise(in: row)
                    guard raise == limits.raise else { return .raiseChanged(raise) }
                    rows[shard] = row
                case .contended: contended = true
                }
            }
            if !contended {
                // Every shard that could take the call alone refused it: the day's room, if any, is spread.
                if shards > 1, acrossTries < 2 {
                    acrossTries += 1
                    switch try await reserveAcross(limits, known: rows, deadline: deadline) {
                    case .reserved(let reservation): return .decided(.reserved(reservation))
                    case .reached(let attempt): return .decided(attempt)
                    case .raiseChanged(let raise): return .raiseChanged(raise)
                    case .raced:
                        rows = [:]
                        continue
                    }
                }
                return .decided(Self.refusal(limits, rows: rows))
            }
            guard await Contention.standard.wait(afterAttempt: round, random: table.random, deadline: deadline) else {
                throw StoreError("ceiling_reserve", .contended, detail: "every shard held or throttled")
            }
        }
    }

    enum ShardAttempt {
        case reserved(CeilingReservation)
        case refused(Item)
        /// Held by a transaction or throttled, and certainly not applied: another shard may take the call.
        case contended
    }

    /// One call's reservation on one shard. A refusal for contention that may have applied (an earlier
    /// attempt's answer was lost) is tried again here with the same token until it is known, so the call
    /// never holds units on two shards.
    func reserve(on shard: Int, _ limits: Limits, deadline: Deadline) async throws(StoreError) -> ShardAttempt {
        let condition = Self.condition(limits, shard: shard, calls: 1, micros: limits.worst)
        var add: [DynamoExpression] = ["\(name: "calls") \(value: .number(1))"]
        if limits.worst > 0 { add.append("\(name: "cost") \(value: .number(limits.worst))") }
        let write = OwnWriteUpdate(
            table: table.table,
            key: row(limits.day, shard: shard),
            update: UpdateExpression(set: [ttl(limits.day)], add: add),
            condition: condition,
            tokenAttribute: "calls_write",
            returnValues: .allNew
        )
        let token = OwnWriteToken.mint(table.random)
        var attempt = 0
        while true {
            attempt += 1
            let outcome: OwnWriteOutcome
            do {
                outcome = try await table.client.ownWriteUpdate(write, token: token, deadline: deadline)
            } catch  where error.isContention {
                if !error.mayHaveApplied, shards > 1 { return .contended }
                guard await Contention.standard.wait(afterAttempt: attempt, random: table.random, deadline: deadline)
                else { throw StoreError("ceiling_reserve", .contended, detail: error.description) }
                continue
            } catch {
                throw StoreError("ceiling_reserve", .failed, detail: error.description)
            }
            guard outcome.succeeded, let row = outcome.row else { return .refused(outcome.row ?? [:]) }
            return .reserved(
                reservation(
                    limits,
                    parts: [CeilingPart(shard: shard, calls: 1, micros: limits.worst)],
                    row: row
                )
            )
        }
    }

    /// A shard's condition for taking `calls` and `micros`: the raise the limits assumed is the row's, and
    /// the shard stays within its share of each limit.
    static func condition(_ limits: Limits, shard: Int, calls: Int64, micros: Int64) -> DynamoExpression {
        var condition: DynamoExpression =
            limits.raise.map { "\(name: "raise") = \(value: .s($0.attribute))" }
            ?? "attribute_not_exists(\(name: "raise"))"
        if limits.calls > 0, calls > 0 {
            let share = limits.callShare(shard) - calls + 1
            condition = condition.and(
                "attribute_not_exists(\(name: "calls")) OR \(name: "calls") < \(value: .number(share))"
            )
        }
        if limits.budget > 0, micros > 0 {
            let room = limits.budgetShare(shard) - micros
            condition = condition.and(
                "attribute_not_exists(\(name: "cost")) OR \(name: "cost") <= \(value: .number(room))"
            )
        }
        return condition
    }

    func reservation(_ limits: Limits, parts: [CeilingPart], row: Item) -> CeilingReservation {
        // One shard's use, scaled to the day: the shares are equal to within one, so a shard at 80 % of its
        // share stands for a day at 80 % (the warnings read it).
        let scale = shards
        let shard = parts.first?.shard ?? 0
        var reservation = CeilingReservation(
            day: limits.day,
            used: row.count("calls") * scale,
            warned: row["warned"] != nil,
            callID: OwnWriteToken.mint(table.random),
            costMicros: limits.worst,
            costUsed: (row["cost"]?.intValue ?? 0) * Int64(scale),
            costWarned: row["cost_warned"] != nil,
            parts: parts,
            raise: limits.raise,
            unsettledMicros: max(0, (row["cost"]?.intValue ?? 0) - (row["settled"]?.intValue ?? 0)) * Int64(scale)
        )
        if limits.calls > 0, limits.callShare(shard) > 0 {
            reservation.callUse = DecisionRecord.fraction(Int64(row.count("calls")), of: limits.callShare(shard))
        }
        if limits.budget > 0, limits.budgetShare(shard) > 0 {
            reservation.costUse = DecisionRecord.fraction(row["cost"]?.intValue ?? 0, of: limits.budgetShare(shard))
        }
        return reservation
    }

    /// Why the day refused a call, from the shards' rows as the refusals returned them.
    static func refusal(_ limits: Limits, rows: [Int: Item]) -> CeilingAttempt {
        guard limits.calls > 0, limits.budget > 0 else { return limits.calls > 0 ? .callsReached : .costReached }
        let callRoom = (0..<limits.shards).reduce(Int64(0)) {
            $0 + max(0, limits.callShare($1) - Int64(rows[$1]?.count("calls") ?? 0))
        }
        return callRoom == 0 ? .callsReached : .costReached
    }

    func ttl(_ day: String) -> DynamoExpression {
        "\(name: Table.ttlAttribute) = \(value: .number(DayKeys.endOfDay(day) + retentionSeconds))"
    }

    @discardableResult
    package func giveBack(
        _ reservation: CeilingReservation,
        calls: Int,
        micros: Int64,
        settled: Int64
    ) async throws -> Bool {
        try await giveBack.apply(
            calls > 0 ? "ceiling_release" : "ceiling_settle",
            callID: reservation.callID,
            parts: Self.giveBackParts(reservation, calls: calls, micros: micros).enumerated().map { index, part in
                // The settled cost is added (a negative amount) on the first part's row, in the same transaction.
                GiveBack.Part(
                    key: row(reservation.day, shard: part.shard),
                    amounts: [("calls", part.calls), ("cost", part.micros), ("settled", index == 0 ? -settled : 0)]
                )
            },
            dayEnd: DayKeys.endOfDay(reservation.day)
        )
    }

    /// Where a give-back of `calls` and `micros` goes: each shard gets back at most what it holds for the
    /// reservation; an excess (a negative `micros`, a settle above the worst case) is added to the first
    /// part. Pure.
    static func giveBackParts(
        _ reservation: CeilingReservation,
        calls: Int,
        micros: Int64
    ) -> [(shard: Int, calls: Int64, micros: Int64)] {
        var callsLeft = Int64(calls)
        var microsLeft = micros
        var parts: [(shard: Int, calls: Int64, micros: Int64)] = []
        for (index, part) in reservation.parts.enumerated() {
            let callsBack = min(callsLeft, Int64(part.calls))
            callsLeft -= callsBack
            let microsBack: Int64
            if micros < 0 {
                microsBack = index == 0 ? micros : 0
            } else {
                microsBack = min(microsLeft, part.micros)
                microsLeft -= microsBack
            }
            parts.append((part.shard, callsBack, microsBack))
        }
        return parts
    }

    package func claimWarning(_ reservation: CeilingReservation) async throws -> Bool {
        try await claim("warned", reservation)
    }

    package func claimCostWarning(_ reservation: CeilingReservation) async throws -> Bool {
        try await claim("cost_warned", reservation)
    }

    /// The day's flag lives on shard 0. A reservation on another shard first claims its shard's own flag
    /// (which its next reservations read, so they stop claiming), and only that shard's winner goes on to
    /// the day's: at most one write per shard and day, one warning per day.
    func claim(_ flag: String, _ reservation: CeilingReservation) async throws(StoreError) -> Bool {
        let shard = reservation.parts.first?.shard ?? 0
        // The day counters' flag write (`ceiling_<flag>`, token `<flag>_write`), on the shard's row, then the day's.
        let flags = DayCounter(table: table, name: "ceiling", attribute: "calls")
        if shard != 0 {
            guard try await flags.claimFlag(key: row(reservation.day, shard: shard), flag: flag) else { return false }
        }
        return try await flags.claimFlag(key: row(reservation.day), flag: flag)
    }
}
