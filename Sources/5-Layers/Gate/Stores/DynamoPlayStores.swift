internal import AttestCore
internal import DynamoDB
package import PlayIntegrity

/// Google's daily decode quota for the whole Cloud project: `PLAY_QUOTA#{pacific day}` / `TOTAL`.
package struct DynamoDecodeQuotaStore: DecodeQuotaStore {
    let counter: DayCounter

    package init(table: GateTable) { counter = DayCounter(table: table, name: "decode_quota", attribute: "decodes") }

    static func key(_ day: String) -> Item { GateTable.key("PLAY_QUOTA#\(day)", "TOTAL") }

    package func incrementDecodeCount(day: String, limit: Int) async throws -> DecodeQuotaCount {
        guard let row = try await counter.take(key: Self.key(day), limit: limit, expiresAt: DayKeys.endOfDay(day))
        else {
            return .limitReached
        }
        return .counted(count: row.count("decodes"), warned: row["warned"] != nil)
    }

    package func claimWarning(day: String) async throws -> Bool {
        try await counter.claimFlag(key: Self.key(day), flag: "warned")
    }
}
