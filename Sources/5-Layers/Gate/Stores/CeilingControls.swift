internal import AttestCore
internal import DynamoDB
internal import FoundationEssentials

/// The operator's live controls on the day's ceiling (`attestgate ceiling …`; docs/operations.md, "Live
/// controls"): what the day's shard rows hold, and a raise written on each of them (`CeilingRaise`).
package struct CeilingControls: Sendable {
    let table: GateTable
    /// `AI_CEILING_SHARDS`: the rows the day is split over.
    let shards: Int

    package init(table: GateTable, shards: Int) {
        self.table = table
        self.shards = max(1, shards)
    }

    /// A day's ceiling summed over its shards.
    package struct Day: Sendable, Hashable {
        /// Calls reserved (a released call is not counted).
        package var calls: Int64 = 0
        /// Micro-dollars reserved: worst cases of calls not settled, settled costs of the others.
        package var reservedMicros: Int64 = 0
        /// Micro-dollars the settled calls cost.
        package var settledMicros: Int64 = 0
        package var warned = false
        package var costWarned = false
        /// The raise on the rows (the highest when a raise is being written).
        package var raise: CeilingRaise?
        /// Rows that hold another raise than `raise` (a raise in the middle of being written).
        package var mixedRaise = false

        /// Micro-dollars reserved but not settled.
        package var driftMicros: Int64 { reservedMicros - settledMicros }
    }

    /// The day's rows, summed.
    /// - Throws: `StoreError` (a read failed, or a row's `raise` is malformed).
    package func day(_ day: String) async throws(StoreError) -> Day {
        var total = Day()
        var raises: Set<CeilingRaise?> = []
        let keys = (0..<shards).map { DynamoCeilingStore.key(day, shard: $0) }
        var start = 0
        while start < keys.count {
            let chunk = Array(keys[start..<min(start + 100, keys.count)])
            start += chunk.count
            let rows = try await table.run("control_ceiling_show") { deadline throws(DynamoDBError) in
                try await table.client.batchGetItem(table.table, keys: chunk, deadline: deadline)
            }
            for row in rows {
                total.calls += Int64(row.count("calls"))
                total.reservedMicros += row["cost"]?.intValue ?? 0
                total.settledMicros += row["settled"]?.intValue ?? 0
                total.warned = total.warned || row["warned"] != nil
                total.costWarned = total.costWarned || row["cost_warned"] != nil
                raises.insert(try DynamoCeilingStore.raise(in: row))
            }
            // A shard never written holds no raise.
            if rows.count < chunk.count { raises.insert(nil) }
        }
        total.mixedRaise = raises.count > 1
        total.raise = raises.compactMap { $0 }.max { ($0.calls, $0.micros) < ($1.calls, $1.micros) }
        return total
    }

    /// Writes `raise` on every shard row of `day` (each row on its own: calls judge each shard by the raise it
    /// holds, so a raise half written is a limit between the two, never past the higher).
    package func raise(_ day: String, to raise: CeilingRaise, stamp: DeviceControls.Stamp) async throws(StoreError) {
        for shard in 0..<shards {
            _ = try await table.update(
                "control_ceiling_raise",
                key: DynamoCeilingStore.key(day, shard: shard),
                update: UpdateExpression(set: [
                    "\(name: "raise") = \(value: .s(raise.attribute))",
                    "\(name: "raised_by") = \(value: .s(stamp.actor))",
                    "\(name: "raised_at") = \(value: .number(Int64(stamp.at.timeIntervalSince1970.rounded(.down))))",
                    "\(name: Table.ttlAttribute) = \(value: .number(DayKeys.endOfDay(day) + 3 * 86_400))",
                ]),
                condition: nil,
                tokenAttribute: "control_write"
            )
        }
    }
}
