internal import AWSJSON
package import AttestCore

/// One action of a `TransactWriteItems` call: all of them apply, or none does.
package enum TransactWrite: Sendable, Hashable {
    case put(PutItem)
    case update(UpdateItem)
}

/// How a transaction ended when it did not apply.
package enum TransactOutcome: Sendable, Hashable {
    case applied
    /// Cancelled; one code per action in order (`None`, `ConditionalCheckFailed`, `TransactionConflict`, …).
    case cancelled(reasons: [String])
}

extension DynamoDBClient {
    /// `TransactWriteItems`: every action applies, or none does (at most 100 actions, one per item).
    /// - Returns: `.applied`, or `.cancelled` with DynamoDB's `CancellationReasons` codes.
    /// - Throws: `DynamoDBError` for everything but a cancellation.
    package func transactWrite(
        _ actions: [TransactWrite],
        deadline: Deadline
    ) async throws(DynamoDBError) -> TransactOutcome {
        guard !actions.isEmpty, actions.count <= 100 else {
            throw DynamoDBError(.invalidExpression, detail: "TransactWriteItems takes 1...100 actions")
        }
        var items: [JSONValue] = []
        for action in actions {
            // Each action has its own placeholders (DynamoDB refuses names or values an action does not use).
            var renderer = ExpressionRenderer()
            switch action {
            case .put(let put):
                try ItemLimits.checkItem(put.item, of: put.table)
                var entry: [String: JSONValue] = [
                    "TableName": .string(put.table.name), "Item": AttributeValue.json(item: put.item),
                ]
                if let condition = put.condition {
                    entry["ConditionExpression"] = .string(try renderer.render(condition, role: "ConditionExpression"))
                }
                renderer.addAttributes(to: &entry)
                items.append(.object(["Put": .object(entry)]))
            case .update(let update):
                try ItemLimits.checkKey(update.key, of: update.table)
                var entry: [String: JSONValue] = [
                    "TableName": .string(update.table.name), "Key": AttributeValue.json(item: update.key),
                    "UpdateExpression": .string(try renderer.render(update.update)),
                ]
                if let condition = update.condition {
                    entry["ConditionExpression"] = .string(try renderer.render(condition, role: "ConditionExpression"))
                }
                renderer.addAttributes(to: &entry)
                items.append(.object(["Update": .object(entry)]))
            }
        }
        do {
            _ = try await call("TransactWriteItems", ["TransactItems": .array(items)], deadline: deadline)
            return .applied
        } catch  where error.code == "TransactionCanceledException" {
            let reasons = error.underlying?.body?["CancellationReasons"]?.arrayValue ?? []
            return .cancelled(reasons: reasons.map { $0["Code"]?.stringValue ?? "Unknown" })
        }
    }
}
