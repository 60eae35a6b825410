internal import DynamoDB

/// A per-day counter row with a limit: allowances, the AI-call ceiling, decode budgets and Google's
/// decode quota all share this write shape (docs/gate.md, rows and writes).
///
/// - `take` adds one if the count is below the limit (`ADD count 1` with `count < limit`), stamping the
///   row's TTL so yesterday's rows clean themselves up.
/// - `give` takes one back if the count is above zero.
/// - `claimFlag` sets a flag exactly once (the day's warning).
/// Each write has its own token attribute, so a reservation's resend is never mistaken for a release's.
struct DayCounter: Sendable {
    let table: GateTable
    let name: String
    let attribute: String
    /// Seconds the row is kept after its day for inspection before TTL deletion.
    let retentionSeconds: Int64 = 3 * 86_400

    /// - Returns: the row after the increment, or nil when the limit was reached.
    func take(key: Item, limit: Int, expiresAt: Int64) async throws(StoreError) -> Item? {
        let outcome = try await table.update(
            "\(name)_reserve",
            key: key,
            update: UpdateExpression(
                set: ["\(name: Table.ttlAttribute) = \(value: .number(expiresAt + retentionSeconds))"],
                add: ["\(name: attribute) \(value: .number(1))"]
            ),
            condition: "attribute_not_exists(\(name: attribute)) OR \(name: attribute) < \(value: .number(limit))",
            tokenAttribute: "\(attribute)_write",
            returnValues: .allNew
        )
        return outcome.succeeded ? outcome.row : nil
    }

    /// - Returns: false when there was nothing to give back.
    @discardableResult
    func give(key: Item) async throws(StoreError) -> Bool {
        let outcome = try await table.update(
            "\(name)_release",
            key: key,
            update: UpdateExpression(add: ["\(name: attribute) \(value: .number(-1))"]),
            condition: "\(name: attribute) > \(value: .number(0))",
            tokenAttribute: "\(attribute)_release_write"
        )
        return outcome.succeeded
    }

    /// - Returns: true for the single caller that set `flag`.
    func claimFlag(key: Item, flag: String) async throws(StoreError) -> Bool {
        let outcome = try await table.update(
            "\(name)_\(flag)",
            key: key,
            update: UpdateExpression(set: ["\(name: flag) = \(value: .bool(true))"]),
            condition: "attribute_not_exists(\(name: flag))",
            tokenAttribute: "\(flag)_write"
        )
        return outcome.succeeded
    }
}

extension Item {
    /// An `N` attribute as Int (0 when absent).
    func count(_ attribute: String) -> Int { Int(self[attribute]?.intValue ?? 0) }
}
