package import AWSJSON
package import AttestCore
package import HTTPClient

/// DynamoDB over its AWS JSON 1.0 API (`X-Amz-Target: DynamoDB_20120810.<Operation>`), SigV4-signed,
/// with the SDKs' standard retries (see `AWSJSONClient`, `RetryPolicy`).
///
/// Every call takes a `Deadline`; nothing waits past it. Input is checked before anything is sent
/// (`ItemLimits`, `ExpressionRenderer`), so a bad request fails with a typed `DynamoDBError` and no traffic.
/// Conditional writes that must recognise their own resend go through `ownWriteUpdate`/`ownWritePut`.
package struct DynamoDBClient: Sendable {
    package let client: AWSJSONClient

    package init(
        configuration: AWSServiceConfiguration,
        transport: any HTTPTransport,
        clock: any WallClock = SystemClock(),
        random: any RandomSource
    ) {
        self.client = AWSJSONClient(configuration: configuration, transport: transport, clock: clock, random: random)
    }

    /// The service configuration for `environment` (credentials, region, `DYNAMODB_ENDPOINT`).
    package static func configuration(_ environment: AWSEnvironment) -> AWSServiceConfiguration {
        AWSServiceConfiguration(
            endpoint: environment.dynamoDBURL,
            region: environment.region,
            signingName: "dynamodb",
            targetPrefix: "DynamoDB_20120810",
            protocolVersion: .json10,
            credentials: environment.credentials
        )
    }

    /// `GetItem`, strongly consistent by default.
    /// - Returns: the item, or nil when there is none.
    package func getItem(
        _ table: Table,
        key: Item,
        consistentRead: Bool = true,
        deadline: Deadline
    ) async throws(DynamoDBError) -> Item? {
        try ItemLimits.checkKey(key, of: table)
        let input: [String: JSONValue] = [
            "TableName": .string(table.name),
            "Key": AttributeValue.json(item: key),
            "ConsistentRead": .bool(consistentRead),
        ]
        let output = try await call("GetItem", input, deadline: deadline)
        guard let item = output["Item"] else { return nil }
        return try AttributeValue.item(json: item)
    }

    /// `PutItem`.
    /// - Returns: the replaced item when `returnValues` is `.allOld` and there was one.
    /// - Throws: `DynamoDBError`; `dynamodb.conditional_check_failed` carries `oldItem` when asked for.
    @discardableResult
    package func putItem(_ request: PutItem, deadline: Deadline) async throws(DynamoDBError) -> Item? {
        try ItemLimits.checkItem(request.item, of: request.table)
        var renderer = ExpressionRenderer()
        var input: [String: JSONValue] = [
            "TableName": .string(request.table.name),
            "Item": AttributeValue.json(item: request.item),
        ]
        if let condition = request.condition {
            input["ConditionExpression"] = .string(try renderer.render(condition, role: "ConditionExpression"))
        }
        Self.addReturnOptions(&input, request.returnValues, request.returnOldItemOnConditionFailure)
        renderer.addAttributes(to: &input)
        return try await attributes(call("PutItem", input, deadline: deadline))
    }

    /// `UpdateItem`.
    /// - Returns: the attributes `returnValues` asked for (nil for `.none`).
    /// - Throws: `DynamoDBError`; `dynamodb.conditional_check_failed` carries `oldItem` when asked for.
    @discardableResult
    package func updateItem(_ request: UpdateItem, deadline: Deadline) async throws(DynamoDBError) -> Item? {
        try ItemLimits.checkKey(request.key, of: request.table)
        var renderer = ExpressionRenderer()
        var input: [String: JSONValue] = [
            "TableName": .string(request.table.name),
            "Key": AttributeValue.json(item: request.key),
            "UpdateExpression": .string(try renderer.render(request.update)),
        ]
        if let condition = request.condition {
            input["ConditionExpression"] = .string(try renderer.render(condition, role: "ConditionExpression"))
        }
        // The values an update writes count towards the item; one over the limit alone is refused here.
        let valueBytes = renderer.allocatedValues.reduce(0) { $0 + ItemLimits.size(of: $1) }
        guard valueBytes <= ItemLimits.maxItemBytes else {
            throw DynamoDBError(.itemTooLarge, detail: "update values are \(valueBytes) bytes")
        }
        Self.addReturnOptions(&input, request.returnValues, request.returnOldItemOnConditionFailure)
        renderer.addAttributes(to: &input)
        return try await attributes(call("UpdateItem", input, deadline: deadline))
    }

    /// `DeleteItem`.
    /// - Returns: the deleted item when `returnValues` is `.allOld` and there was one.
    @discardableResult
    package func deleteItem(_ request: DeleteItem, deadline: Deadline) async throws(DynamoDBError) -> Item? {
        try ItemLimits.checkKey(request.key, of: request.table)
        var renderer = ExpressionRenderer()
        var input: [String: JSONValue] = [
            "TableName": .string(request.table.name),
            "Key": AttributeValue.json(item: request.key),
        ]
        if let condition = request.condition {
            input["ConditionExpression"] = .string(try renderer.render(condition, role: "ConditionExpression"))
        }
        Self.addReturnOptions(&input, request.returnValues, request.returnOldItemOnConditionFailure)
        renderer.addAttributes(to: &input)
        return try await attributes(call("DeleteItem", input, deadline: deadline))
    }

    /// `Query`, one page.
    package func query(_ request: Query, deadline: Deadline) async throws(DynamoDBError) -> QueryPage {
        var renderer = ExpressionRenderer()
        var input: [String: JSONValue] = [
            "TableName": .string(request.table.name),
            "KeyConditionExpression": .string(
                try renderer.render(request.keyCondition, role: "KeyConditionExpression")
            ),
            "ConsistentRead": .bool(request.consistentRead),
            "ScanIndexForward": .bool(request.scanIndexForward),
        ]
        if let filter = request.filter {
            input["FilterExpression"] = .string(try renderer.render(filter, role: "FilterExpression"))
        }
        if let limit = request.limit { input["Limit"] = .int(Int64(limit)) }
        if let start = request.exclusiveStartKey {
            try ItemLimits.checkKey(start, of: request.table)
            input["ExclusiveStartKey"] = AttributeValue.json(item: start)
        }
        renderer.addAttributes(to: &input)
        let output = try await call("Query", input, deadline: deadline)
        var items: [Item] = []
        for element in output["Items"]?.arrayValue ?? [] { items.append(try AttributeValue.item(json: element)) }
        let last = try output["LastEvaluatedKey"].map { (json) throws(DynamoDBError) in
            try AttributeValue.item(json: json)
        }
        return QueryPage(items: items, lastEvaluatedKey: last)
    }

    /// `CreateTable` with string keys and on-demand billing (design.md section 6 by default).
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

    // MARK: plumbing

    private func call(
        _ operation: String,
        _ input: [String: JSONValue],
        deadline: Deadline
    ) async throws(DynamoDBError)
        -> JSONValue
    {
        do {
            return try await client.call(operation, .object(input), deadline: deadline)
        } catch {
            throw DynamoDBError(error)
        }
    }

    private func attributes(_ output: JSONValue) throws(DynamoDBError) -> Item? {
        guard let attributes = output["Attributes"] else { return nil }
        return try AttributeValue.item(json: attributes)
    }

    private static func addReturnOptions(
        _ input: inout [String: JSONValue],
        _ values: ReturnValues,
        _ oldOnFailure: Bool
    ) {
        if values != .none { input["ReturnValues"] = .string(values.rawValue) }
        if oldOnFailure { input["ReturnValuesOnConditionCheckFailure"] = .string("ALL_OLD") }
    }
}
