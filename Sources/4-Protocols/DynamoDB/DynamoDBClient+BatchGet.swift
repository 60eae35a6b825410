internal import AWSJSON
package import AttestCore

extension DynamoDBClient {
    /// `BatchGetItem` on one table: reads up to 100 items in one request (strongly consistent by default).
    ///
    /// Keys DynamoDB leaves unprocessed (throttling) are asked for again until the deadline.
    /// - Returns: the items found, in no particular order; absent keys are simply missing.
    /// - Throws: `DynamoDBError`.
    package func batchGetItem(
        _ table: Table,
        keys: [Item],
        consistentRead: Bool = true,
        deadline: Deadline
    ) async throws(DynamoDBError) -> [Item] {
        precondition((1...100).contains(keys.count), "BatchGetItem takes 1 to 100 keys")
        for key in keys { try ItemLimits.checkKey(key, of: table) }
        var pending = keys.map { AttributeValue.json(item: $0) }
        var found: [Item] = []
        while !pending.isEmpty {
            let input: JSONValue = .object([
                "RequestItems": .object([
                    table.name: .object(["Keys": .array(pending), "ConsistentRead": .bool(consistentRead)])
                ])
            ])
            let output: JSONValue
            do {
                output = try await client.call("BatchGetItem", input, deadline: deadline)
            } catch {
                throw DynamoDBError(error)
            }
            for item in output["Responses"]?[table.name]?.arrayValue ?? [] {
                found.append(try AttributeValue.item(json: item))
            }
            pending = output["UnprocessedKeys"]?[table.name]?["Keys"]?.arrayValue ?? []
            if !pending.isEmpty, deadline.remaining <= .zero {
                throw DynamoDBError(.deadlineExceeded, detail: "unprocessed keys left at the deadline")
            }
        }
        return found
    }
}
