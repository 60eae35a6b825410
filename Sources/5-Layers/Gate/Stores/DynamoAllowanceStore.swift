internal import AttestCore
internal import CivilTime
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
            unlessSet: "granted",
            dayEnd: DayKeys.endOfDay(reservation.day)
        )
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
