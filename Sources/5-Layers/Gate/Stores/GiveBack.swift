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
/// The failure direction is a unit that stays spent. A cancellation for contention (another transaction
/// holds one of the items, `TransactionConflict`, or an item is throttled, `ThrottlingError`) applied
/// nothing, so the same transaction is tried again (`Contention`) until the call's deadline; the marker
/// keeps every try safe. Only a give-back that never completes by then (or a Lambda that ends) leaves
/// the reservation in place, reported as a store error. None can admit past a limit.
struct GiveBack: Sendable {
    let table: GateTable
    /// The marker's sort key (`ALLOWANCE`, `CEILING`).
    let kind: String
    let retentionSeconds: Int64 = 3 * 86_400

    /// One counter row and the amounts to take off it.
    struct Part: Sendable {
        let key: Item
        /// attribute → amount to take off (negative adds; a positive amount is conditioned on the row
        /// holding at least as much).
        let amounts: [(String, Int64)]
        /// An attribute whose presence lifts that floor: an operator's grant (`granted`) counts ahead, so
        /// such a row may hold less than a reservation it gave out.
        var unlessSet: String? = nil
    }

    static func marker(_ callID: String, _ kind: String) -> Item { GateTable.key("RETURN#\(callID)", kind) }

    /// A give-back from one counter row.
    @discardableResult
    func apply(
        _ operation: String,
        callID: String,
        counter key: Item,
        amounts: [(String, Int64)],
        unlessSet: String? = nil,
        dayEnd: Int64
    ) async throws(StoreError) -> Bool {
        try await apply(
            operation,
            callID: callID,
            parts: [Part(key: key, amounts: amounts, unlessSet: unlessSet)],
            dayEnd: dayEnd
        )
    }

    /// - Parameters:
    ///   - parts: the counter rows (a ceiling shard or several) and what to take off each.
    ///   - dayEnd: the Unix second the counters' day ends (the marker's TTL follows the rows').
    /// - Returns: true when applied (now or by an earlier send), false when a row holds too little.
    func apply(
        _ operation: String,
        callID: String,
        parts: [Part],
        dayEnd: Int64
    ) async throws(StoreError) -> Bool {
        let parts = parts.map { Part(key: $0.key, amounts: $0.amounts.filter { $0.1 != 0 }, unlessSet: $0.unlessSet) }
            .filter {
                !$0.amounts.isEmpty
            }
        guard !parts.isEmpty else { return true }
        guard !callID.isEmpty else { throw StoreError(operation, .unnamed) }
        var markerItem = Self.marker(callID, kind)
        markerItem[Table.ttlAttribute] = .number(dayEnd + retentionSeconds)
        for part in parts {
            for (attribute, amount) in part.amounts {
                markerItem[attribute] = .number((markerItem[attribute]?.intValue ?? 0) + amount)
            }
        }
        var actions: [TransactWrite] = [
            .put(PutItem(table: table.table, item: markerItem, condition: "attribute_not_exists(PK)"))
        ]
        for part in parts {
            var condition: DynamoExpression?
            for (attribute, amount) in part.amounts where amount > 0 {
                let clause: DynamoExpression = "\(name: attribute) >= \(value: .number(amount))"
                condition = condition.map { $0.and(clause) } ?? clause
            }
            if let unlessSet = part.unlessSet {
                condition = condition.map { $0.or("attribute_exists(\(name: unlessSet))") }
            }
            let update = UpdateExpression(add: part.amounts.map { "\(name: $0.0) \(value: .number(-$0.1))" })
            actions.append(.update(UpdateItem(table: table.table, key: part.key, update: update, condition: condition)))
        }
        let deadline = Deadline.forCall()
        var attempt = 0
        while true {
            attempt += 1
            let outcome: TransactOutcome
            do {
                outcome = try await table.client.transactWrite(actions, deadline: deadline)
            } catch  where error.isContention {
                guard await Contention.standard.wait(afterAttempt: attempt, random: table.random, deadline: deadline)
                else { throw StoreError(operation, .contended, detail: error.description) }
                continue
            } catch {
                throw StoreError(operation, .failed, detail: error.description)
            }
            switch outcome {
            case .applied:
                return true
            case .cancelled(let reasons):
                if reasons.first == "ConditionalCheckFailed" { return true }  // our marker: already given back
                if reasons.dropFirst().contains("ConditionalCheckFailed") { return false }
                let detail = reasons.joined(separator: ",")
                guard reasons.contains(where: { Contention.cancellationCodes.contains($0) }) else {
                    throw StoreError(operation, .cancelled, detail: detail)
                }
                guard await Contention.standard.wait(afterAttempt: attempt, random: table.random, deadline: deadline)
                else { throw StoreError(operation, .contended, detail: detail) }
            }
        }
    }
}
