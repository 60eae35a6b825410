package import AttestCore

extension DynamoDBClient {
    /// `CreateTable` with string keys and on-demand billing (docs/api.md section 6 by default).
    package func createTable(_ table: Table, deadline: Deadline) async throws(DynamoDBError) -> TableDescription {
        var keySchema: [JSONValue] = [
            .object(["AttributeName": .string(table.partitionKey), "KeyType": .string("HASH")])
        ]
        var definitions: [JSONValue] = [
            .object(["AttributeName": .string(table.partitionKey), "AttributeType": .string("S")])
        ]
        if let sortKey = table.sortKey {
            keySchema.append(.object(["AttributeName": .string(sortKey), "KeyType": .string("RANGE")]))
            definitions.append(.object(["AttributeName": .string(sortKey), "AttributeType": .string("S")]))
        }
        let input: [String: JSONValue] = [
            "TableName": .string(table.name),
            "KeySchema": .array(keySchema),
            "AttributeDefinitions": .array(definitions),
            "BillingMode": .string("PAY_PER_REQUEST"),
        ]
        let output = try await call("CreateTable", input, deadline: deadline)
        return try TableDescription(json: output["TableDescription"] ?? .null)
    }

    /// `DescribeTable`.
    package func describeTable(_ name: String, deadline: Deadline) async throws(DynamoDBError) -> TableDescription {
        let output = try await call("DescribeTable", ["TableName": .string(name)], deadline: deadline)
        return try TableDescription(json: output["Table"] ?? .null)
    }

    /// `UpdateTimeToLive`: turns expiry on `attribute` on or off.
    /// - Returns: the specification DynamoDB echoes back.
    @discardableResult
    package func updateTimeToLive(
        table name: String,
        attribute: String,
        enabled: Bool,
        deadline: Deadline
    ) async throws(DynamoDBError) -> (attribute: String, enabled: Bool) {
        let input: [String: JSONValue] = [
            "TableName": .string(name),
            "TimeToLiveSpecification": .object(["AttributeName": .string(attribute), "Enabled": .bool(enabled)]),
        ]
        let output = try await call("UpdateTimeToLive", input, deadline: deadline)
        let specification = output["TimeToLiveSpecification"]
        return (
            specification?["AttributeName"]?.stringValue ?? attribute, specification?["Enabled"]?.boolValue ?? enabled
        )
    }

    /// `DescribeTimeToLive`: the TTL attribute and its status (`ENABLED`, `DISABLED`, ...).
    package func describeTimeToLive(
        table name: String,
        deadline: Deadline
    ) async throws(DynamoDBError) -> (attribute: String?, status: String) {
        let output = try await call("DescribeTimeToLive", ["TableName": .string(name)], deadline: deadline)
        let description = output["TimeToLiveDescription"]
        return (description?["AttributeName"]?.stringValue, description?["TimeToLiveStatus"]?.stringValue ?? "DISABLED")
    }
}
