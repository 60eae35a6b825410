package import AttestCore

extension DynamoDBClient {
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
}
