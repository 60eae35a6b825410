internal import AttestCore
package import CivilTime
internal import DynamoDB

/// Allowances on the table: `DEVICE#{id}` or `USER#{sub}` / `QUOTA#{feature}#{day}`; a release also writes
/// its marker `RETURN#{callID}` / `ALLOWANCE` in the same transaction (`GiveBack`).
package struct DynamoAllowanceStore: AllowanceStore {
    let counter: DayCounter
    let giveBack: GiveBack

    package init(table: GateTable) {
        counter = DayCounter(table: table, name: "allowance", attribute: "count")
        giveBack = GiveBack(table: table, kind: "ALLOWANCE")
    }

    static func key(_ subject: Subject, _ feature: String, _ day: String) -> Item {
        GateTable.key(subject.partitionKey, "QUOTA#\(feature)#\(day)")
    }

    package func reserve(
        subject: Subject,
        feature: String,
        day: String,
        limit: Int
    ) async throws -> AllowanceReservation? {
        guard
            let row = try await counter.take(
                key: Self.key(subject, feature, day),
                limit: limit,
                expiresAt: DayKeys.endOfDay(day)
            )
        else { return nil }
        return AllowanceReservation(
            subject: subject,
            feature: feature,
            day: day,
            remaining: max(0, limit - row.count("count")),
            callID: OwnWriteToken.mint(counter.table.random)
        )
    }

    package func release(_ reservation: AllowanceReservation) async throws {
        try await giveBack.apply(
            "allowance_release",
            callID: reservation.callID,
            counter: Self.key(reservation.subject, reservation.feature, reservation.day),
            amounts: [("count", 1)],
            dayEnd: DayKeys.endOfDay(reservation.day)
        )
    }
}

/// The environment's daily ceiling on the table: `AI_BUDGET#{day}` / `TOTAL` with `calls`, `cost`
/// (micro-dollars reserved), `warned` and `cost_warned`.
package struct DynamoCeilingStore: CeilingStore {
    let counter: DayCounter
    let giveBack: GiveBack
    var table: GateTable { counter.table }

    package init(table: GateTable) {
        counter = DayCounter(table: table, name: "ceiling", attribute: "calls")
        giveBack = GiveBack(table: table, kind: "CEILING")
    }

    static func key(_ day: String) -> Item { GateTable.key("AI_BUDGET#\(day)", "TOTAL") }

    package func reserve(
        day: String,
        limit: Int,
        worstCaseMicros: Int64,
        budgetMicros: Int64
    ) async throws -> CeilingAttempt {
        if budgetMicros > 0, worstCaseMicros > budgetMicros { return .costReached }
        // One write holds both ceilings: `calls < limit` and "the worst case still fits".
        var condition: DynamoExpression?
        if limit > 0 {
            condition = "attribute_not_exists(\(name: "calls")) OR \(name: "calls") < \(value: .number(limit))"
        }
        if budgetMicros > 0 {
            let room = budgetMicros - worstCaseMicros
            let fits: DynamoExpression =
                "attribute_not_exists(\(name: "cost")) OR \(name: "cost") <= \(value: .number(room))"
            condition = condition.map { $0.and(fits) } ?? fits
        }
        var add: [DynamoExpression] = ["\(name: "calls") \(value: .number(1))"]
        if worstCaseMicros > 0 { add.append("\(name: "cost") \(value: .number(worstCaseMicros))") }
        let outcome = try await table.update(
            "ceiling_reserve",
            key: Self.key(day),
            update: UpdateExpression(
                set: [
                    "\(name: Table.ttlAttribute) = \(value: .number(DayKeys.endOfDay(day) + counter.retentionSeconds))"
                ],
                add: add
            ),
            condition: condition,
            tokenAttribute: "calls_write",
            returnValues: .allNew
        )
        guard outcome.succeeded, let row = outcome.row else {
            let row = outcome.row
            if limit > 0, (row?.count("calls") ?? 0) >= limit { return .callsReached }
            return budgetMicros > 0 ? .costReached : .callsReached
        }
        return .reserved(
            CeilingReservation(
                day: day,
                used: row.count("calls"),
                warned: row["warned"] != nil,
                callID: OwnWriteToken.mint(table.random),
                costMicros: worstCaseMicros,
                costUsed: row["cost"]?.intValue ?? 0,
                costWarned: row["cost_warned"] != nil
            )
        )
    }

    @discardableResult
    package func giveBack(_ reservation: CeilingReservation, calls: Int, micros: Int64) async throws -> Bool {
        try await giveBack.apply(
            calls > 0 ? "ceiling_release" : "ceiling_settle",
            callID: reservation.callID,
            counter: Self.key(reservation.day),
            amounts: [("calls", Int64(calls)), ("cost", micros)],
            dayEnd: DayKeys.endOfDay(reservation.day)
        )
    }

    package func claimWarning(day: String) async throws -> Bool {
        try await counter.claimFlag(key: Self.key(day), flag: "warned")
    }

    package func claimCostWarning(day: String) async throws -> Bool {
        try await counter.claimFlag(key: Self.key(day), flag: "cost_warned")
    }
}

/// Day keys (`YYYY-MM-DD`) to the Unix second their day ends, for TTL stamps (UTC reading; the rows
/// are kept days longer, so the zone's offset does not matter here).
enum DayKeys {
    static func endOfDay(_ day: String) -> Int64 {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return 0 }
        return (CivilDate(year: parts[0], month: parts[1], day: parts[2]).daysSinceEpoch + 1) * 86_400
    }
}
