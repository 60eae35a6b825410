internal import AttestCore
internal import DynamoDB

/// A give-back (release or settle) that applies at most once per reservation, whatever resends and
/// other writers do.
///
/// A counter row keeps one own-write token, so a resent decrement whose first send landed is judged
/// against whoever wrote the row last and may apply again (the counter drops by two; calls are then
/// admitted past the limit). Instead, each give-back is one `TransactWriteItems`:
///
/// 1. `Put RETURN#{callID}` / `{kind}` if `attribute_not_exists(PK)`: the reservation's marker;
/// 2. `Update` the counter row: `ADD` the negative amounts, if the row holds at least that much.
///
/// Both apply or neither does. A resend (or any second attempt) finds the marker and is cancelled with
/// `ConditionalCheckFailed` on the first action, which reads as "already given back". Only this
/// reservation ever writes its marker (the call ID is 16 random bytes), so the marker exists exactly
/// when the decrement applied.
///
/// The failure direction is a unit that stays spent: a cancellation for a concurrent transaction on the
/// row (`TransactionConflict`) is retried twice and then reported as a store error, and a give-back that
/// never completes (timeout, Lambda ended) leaves the reservation in place. None can admit past a limit.
struct GiveBack: Sendable {
    let table: GateTable
    /// The marker's sort key (`ALLOWANCE`, `CEILING`).
    let kind: String
    let retentionSeconds: Int64 = 3 * 86_400

    static func marker(_ callID: String, _ kind: String) -> Item { GateTable.key("RETURN#\(callID)", kind) }

    /// - Parameters:
    ///   - amounts: attribute → amount to take off (negative adds; a positive amount is conditioned on the
    ///     row holding at least as much).
    ///   - dayEnd: the Unix second the counter's day ends (the marker's TTL follows the row's).
    /// - Returns: true when applied (now or by an earlier send), false when the row holds too little.
    func apply(
        _ operation: String,
        callID: String,
        counter key: Item,
        amounts: [(String, Int64)],
        dayEnd: Int64
    ) async throws(StoreError) -> Bool {
        let amounts = amounts.filter { $0.1 != 0 }
        guard !amounts.isEmpty else { return true }
        guard !callID.isEmpty else { throw StoreError("store.\(operation)_unnamed") }
        var condition: DynamoExpression?
        for (attribute, amount) in amounts where amount > 0 {
            let clause: DynamoExpression = "\(name: attribute) >= \(value: .number(amount))"
            condition = condition.map { $0.and(clause) } ?? clause
        }
        let update = UpdateExpression(add: amounts.map { "\(name: $0.0) \(value: .number(-$0.1))" })
        var markerItem = Self.marker(callID, kind)
        markerItem[Table.ttlAttribute] = .number(dayEnd + retentionSeconds)
        for (attribute, amount) in amounts { markerItem[attribute] = .number(amount) }
        let actions: [TransactWrite] = [
            .put(PutItem(table: table.table, item: markerItem, condition: "attribute_not_exists(PK)")),
            .update(UpdateItem(table: table.table, key: key, update: update, condition: condition)),
        ]
        for attempt in 1...3 {
            let outcome = try await table.run(operation) { deadline throws(DynamoDBError) in
                try await table.client.transactWrite(actions, deadline: deadline)
            }
            switch outcome {
            case .applied:
                return true
            case .cancelled(let reasons):
                if reasons.first == "ConditionalCheckFailed" { return true }  // our marker: already given back
                if reasons.count > 1, reasons[1] == "ConditionalCheckFailed" { return false }
                guard attempt < 3, reasons.contains("TransactionConflict") else {
                    throw StoreError("store.\(operation)_cancelled", detail: reasons.joined(separator: ","))
                }
                try? await Task.sleep(for: .milliseconds(15 * attempt * attempt))
            }
        }
        throw StoreError("store.\(operation)_cancelled", detail: "unreachable")
    }
}
