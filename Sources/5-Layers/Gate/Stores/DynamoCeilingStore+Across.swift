internal import AttestCore
internal import DynamoDB

/// A reservation taken from several shards at once, for the end of a day when no single shard has room
/// for the call's worst case but the shards together do (docs/gate.md, "The ceiling under contention").
///
/// One `TransactWriteItems`: a marker `RESERVE#{callID}` / `CEILING` (so a resend of the transaction is
/// recognised, as give-backs are), then one update per shard that adds its part under that shard's own
/// condition. Each part stays within its shard's share, so the total stays within the limit; if another
/// writer took the room first, the transaction is cancelled and nothing is taken.
extension DynamoCeilingStore {
    enum Across {
        case reserved(CeilingReservation)
        /// The day's total has no room for the call.
        case reached(CeilingAttempt)
        /// Another writer changed a shard between the reads and the transaction.
        case raced
        /// A shard holds another raise than the limits assumed.
        case raiseChanged(CeilingRaise?)
    }

    func reserveAcross(_ limits: Limits, known: [Int: Item], deadline: Deadline) async throws(StoreError) -> Across {
        var rows = known
        for shard in 0..<shards where rows[shard] == nil {
            let key = row(limits.day, shard: shard)
            rows[shard] =
                try await table.run("ceiling_read") { deadline throws(DynamoDBError) in
                    try await table.client.getItem(table.table, key: key, deadline: deadline)
                } ?? [:]
        }
        for row in rows.values {
            let raise = try Self.raise(in: row)
            if raise != limits.raise { return .raiseChanged(raise) }
        }
        guard let plan = Self.plan(limits, rows: rows) else { return .reached(Self.refusal(limits, rows: rows)) }
        let callID = OwnWriteToken.mint(table.random)
        var marker = GateTable.key("RESERVE#\(callID)", giveBack.kind)
        marker[Table.ttlAttribute] = .number(DayKeys.endOfDay(limits.day) + retentionSeconds)
        var actions: [TransactWrite] = [
            .put(PutItem(table: table.table, item: marker, condition: "attribute_not_exists(PK)"))
        ]
        for part in plan {
            let condition = Self.condition(
                limits,
                shard: part.shard,
                calls: Int64(part.calls),
                micros: part.micros
            )
            var add: [DynamoExpression] = []
            if part.calls > 0 { add.append("\(name: "calls") \(value: .number(Int64(part.calls)))") }
            if part.micros > 0 { add.append("\(name: "cost") \(value: .number(part.micros))") }
            actions.append(
                .update(
                    UpdateItem(
                        table: table.table,
                        key: row(limits.day, shard: part.shard),
                        update: UpdateExpression(set: [ttl(limits.day)], add: add),
                        condition: condition
                    )
                )
            )
        }
        var attempt = 0
        while true {
            attempt += 1
            let outcome: TransactOutcome
            do {
                outcome = try await table.client.transactWrite(actions, deadline: deadline)
            } catch  where error.isContention {
                guard await Contention.standard.wait(afterAttempt: attempt, random: table.random, deadline: deadline)
                else { throw StoreError("ceiling_reserve", .contended, detail: error.description) }
                continue
            } catch {
                throw StoreError("ceiling_reserve", .failed, detail: error.description)
            }
            switch outcome {
            case .applied:
                break
            case .cancelled(let reasons) where reasons.first == "ConditionalCheckFailed":
                break  // our marker: an earlier send of this transaction applied it
            case .cancelled(let reasons) where reasons.contains("ConditionalCheckFailed"):
                return .raced
            case .cancelled(let reasons)
            where reasons.contains(where: { Contention.cancellationCodes.contains($0) }):
                guard await Contention.standard.wait(afterAttempt: attempt, random: table.random, deadline: deadline)
                else { throw StoreError("ceiling_reserve", .contended, detail: reasons.joined(separator: ",")) }
                continue
            case .cancelled(let reasons):
                throw StoreError("ceiling_reserve", .cancelled, detail: reasons.joined(separator: ","))
            }
            let first = plan[0]
            var row = rows[first.shard] ?? [:]
            row["calls"] = .number(Int64(row.count("calls") + first.calls))
            row["cost"] = .number((row["cost"]?.intValue ?? 0) + first.micros)
            return .reserved(reservation(limits, parts: plan, row: row))
        }
    }

    /// How to take one call and its worst case from shards that each hold too little alone: the call unit
    /// and as much of the worst case as fit from the shard with call room and the most money room, the
    /// rest from the others, roomiest first. Nil when the day's total cannot take the call. Pure.
    static func plan(_ limits: Limits, rows: [Int: Item]) -> [CeilingPart]? {
        func callRoom(_ shard: Int) -> Int64 {
            limits.calls == 0 ? Int64.max : limits.callShare(shard) - Int64(rows[shard]?.count("calls") ?? 0)
        }
        func costRoom(_ shard: Int) -> Int64 {
            limits.budget == 0 ? Int64.max : limits.budgetShare(shard) - (rows[shard]?["cost"]?.intValue ?? 0)
        }
        let shards = 0..<limits.shards
        guard let callShard = shards.filter({ callRoom($0) >= 1 }).max(by: { costRoom($0) < costRoom($1) }) else {
            return nil
        }
        guard limits.budget > 0, limits.worst > 0 else {
            return [CeilingPart(shard: callShard, calls: 1, micros: limits.worst)]
        }
        var need = limits.worst
        let first = min(need, max(0, costRoom(callShard)))
        var parts = [CeilingPart(shard: callShard, calls: 1, micros: first)]
        need -= first
        let donors = shards.filter { $0 != callShard && costRoom($0) > 0 }.sorted { costRoom($0) > costRoom($1) }
        for shard in donors where need > 0 {
            let take = min(need, costRoom(shard))
            parts.append(CeilingPart(shard: shard, calls: 0, micros: take))
            need -= take
        }
        // One transaction holds at most 100 items: the marker and 99 parts.
        return need == 0 && parts.count <= 99 ? parts : nil
    }
}
