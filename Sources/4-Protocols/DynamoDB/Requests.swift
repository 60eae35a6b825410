/// Which attributes a write returns (`ReturnValues`).
package enum ReturnValues: String, Sendable, Hashable {
    case none = "NONE"
    case allOld = "ALL_OLD"
    case updatedOld = "UPDATED_OLD"
    case allNew = "ALL_NEW"
    case updatedNew = "UPDATED_NEW"
}

/// `PutItem`: write a whole item, optionally only if `condition` holds.
package struct PutItem: Sendable, Hashable {
    package var table: Table
    package var item: Item
    package var condition: DynamoExpression?
    /// `.none` or `.allOld` (DynamoDB accepts nothing else for PutItem).
    package var returnValues: ReturnValues
    /// Ask for the item as it was when `condition` failed (`ReturnValuesOnConditionCheckFailure=ALL_OLD`).
    package var returnOldItemOnConditionFailure: Bool

    package init(
        table: Table,
        item: Item,
        condition: DynamoExpression? = nil,
        returnValues: ReturnValues = .none,
        returnOldItemOnConditionFailure: Bool = true
    ) {
        self.table = table
        self.item = item
        self.condition = condition
        self.returnValues = returnValues
        self.returnOldItemOnConditionFailure = returnOldItemOnConditionFailure
    }
}

/// `UpdateItem`: change attributes of one item (creating it when absent, unless `condition` forbids it).
package struct UpdateItem: Sendable, Hashable {
    package var table: Table
    package var key: Item
    package var update: UpdateExpression
    package var condition: DynamoExpression?
    package var returnValues: ReturnValues
    package var returnOldItemOnConditionFailure: Bool

    package init(
        table: Table,
        key: Item,
        update: UpdateExpression,
        condition: DynamoExpression? = nil,
        returnValues: ReturnValues = .none,
        returnOldItemOnConditionFailure: Bool = true
    ) {
        self.table = table
        self.key = key
        self.update = update
        self.condition = condition
        self.returnValues = returnValues
        self.returnOldItemOnConditionFailure = returnOldItemOnConditionFailure
    }
}

/// `DeleteItem`. Note: a delete cannot carry an own-write token; where a resend must be recognised,
/// mark the item with an update instead (docs/dynamodb.md, own writes).
package struct DeleteItem: Sendable, Hashable {
    package var table: Table
    package var key: Item
    package var condition: DynamoExpression?
    package var returnValues: ReturnValues
    package var returnOldItemOnConditionFailure: Bool

    package init(
        table: Table,
        key: Item,
        condition: DynamoExpression? = nil,
        returnValues: ReturnValues = .none,
        returnOldItemOnConditionFailure: Bool = true
    ) {
        self.table = table
        self.key = key
        self.condition = condition
        self.returnValues = returnValues
        self.returnOldItemOnConditionFailure = returnOldItemOnConditionFailure
    }
}

/// `Query`: items of one partition, in sort-key order.
package struct Query: Sendable, Hashable {
    package var table: Table
    /// e.g. `"\(name: "PK") = \(value: .s(pk)) AND begins_with(\(name: "SK"), \(value: .s("QUOTA#")))"`.
    package var keyCondition: DynamoExpression
    package var filter: DynamoExpression?
    package var consistentRead: Bool
    package var limit: Int?
    package var scanIndexForward: Bool
    package var exclusiveStartKey: Item?

    package init(
        table: Table,
        keyCondition: DynamoExpression,
        filter: DynamoExpression? = nil,
        consistentRead: Bool = true,
        limit: Int? = nil,
        scanIndexForward: Bool = true,
        exclusiveStartKey: Item? = nil
    ) {
        self.table = table
        self.keyCondition = keyCondition
        self.filter = filter
        self.consistentRead = consistentRead
        self.limit = limit
        self.scanIndexForward = scanIndexForward
        self.exclusiveStartKey = exclusiveStartKey
    }
}

/// One page of `Query` results.
package struct QueryPage: Sendable, Hashable {
    package var items: [Item]
    /// Present when more items remain: pass it as the next query's `exclusiveStartKey`.
    package var lastEvaluatedKey: Item?
}
