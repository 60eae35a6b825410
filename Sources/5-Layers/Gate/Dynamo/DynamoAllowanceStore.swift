internal import AttestCore
package import CivilTime
internal import DynamoDB

/// Allowances on the table: `DEVICE#{id}` or `USER#{sub}` / `QUOTA#{feature}#{day}`.
package struct DynamoAllowanceStore: AllowanceStore {
    let counter: DayCounter

    package init(table: GateTable) { counter = DayCounter(table: table, name: "allowance", attribute: "count") }

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
            remaining: max(0, limit - row.count("count"))
        )
    }

    package func release(_ reservation: AllowanceReservation) async throws {
        try await counter.give(key: Self.key(reservation.subject, reservation.feature, reservation.day))
    }
}

/// The environment's daily ceiling on the table: `AI_BUDGET#{day}` / `TOTAL` with `calls` and `warned`.
package struct DynamoCeilingStore: CeilingStore {
    let counter: DayCounter

    package init(table: GateTable) { counter = DayCounter(table: table, name: "ceiling", attribute: "calls") }

    static func key(_ day: String) -> Item { GateTable.key("AI_BUDGET#\(day)", "TOTAL") }

    package func reserve(day: String, limit: Int) async throws -> CeilingReservation? {
        guard let row = try await counter.take(key: Self.key(day), limit: limit, expiresAt: DayKeys.endOfDay(day))
        else {
            return nil
        }
        return CeilingReservation(day: day, used: row.count("calls"), warned: row["warned"] != nil)
    }

    package func release(_ reservation: CeilingReservation) async throws {
        try await counter.give(key: Self.key(reservation.day))
    }

    package func claimWarning(day: String) async throws -> Bool {
        try await counter.claimFlag(key: Self.key(day), flag: "warned")
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
