/// DynamoDB's size limits, checked before sending so that an oversized value fails with a clear error
/// instead of a `ValidationException` round trip (or, for a key built from client input, a store error
/// that a caller might read as "unavailable"; docs/gate.md, rows and writes).
package enum ItemLimits {
    /// 400 KB, the largest item (developer guide, "Service, account, and table quotas").
    package static let maxItemBytes = 400 * 1024
    package static let maxPartitionKeyBytes = 2048
    package static let maxSortKeyBytes = 1024

    /// The size DynamoDB counts for an item: each attribute name's UTF-8 length plus its value's size
    /// (developer guide, "Item sizes and formats"). Numbers are counted at their upper bound.
    package static func size(of item: Item) -> Int {
        item.reduce(0) { $0 + $1.key.utf8.count + size(of: $1.value) }
    }

    package static func size(of value: AttributeValue) -> Int {
        switch value {
        case .s(let text): text.utf8.count
        case .n(let digits): digits.utf8.count / 2 + 2
        case .b(let bytes): bytes.count
        case .bool, .null: 1
        case .m(let map): 3 + map.reduce(0) { $0 + $1.key.utf8.count + size(of: $1.value) + 1 }
        case .l(let list): 3 + list.reduce(0) { $0 + size(of: $1) + 1 }
        case .ss(let texts): texts.reduce(0) { $0 + $1.utf8.count }
        case .ns(let numbers): numbers.reduce(0) { $0 + $1.utf8.count / 2 + 2 }
        case .bs(let blobs): blobs.reduce(0) { $0 + $1.count }
        }
    }

    /// Checks that `key` has exactly `table`'s key attributes, each a non-empty S, N or B within its limit.
    package static func checkKey(_ key: Item, of table: Table) throws(DynamoDBError) {
        // Exactly the table's key attributes: as many, and each of them present (no sets built per call).
        let expected = table.sortKey.map { [table.partitionKey, $0] } ?? [table.partitionKey]
        guard key.count == expected.count, expected.allSatisfy({ key[$0] != nil }) else {
            throw DynamoDBError(.invalidKey, detail: "key attributes \(key.keys.sorted()) != \(expected.sorted())")
        }
        try checkKeyAttributes(key, of: table)
    }

    /// Checks an item's key attributes (present, typed, sized) and its total size.
    package static func checkItem(_ item: Item, of table: Table) throws(DynamoDBError) {
        try checkKeyAttributes(item, of: table)
        let size = size(of: item)
        guard size <= maxItemBytes else {
            throw DynamoDBError(.itemTooLarge, detail: "item is \(size) bytes; the limit is \(maxItemBytes)")
        }
    }

    private static func checkKeyAttributes(_ item: Item, of table: Table) throws(DynamoDBError) {
        var parts = [(table.partitionKey, maxPartitionKeyBytes)]
        if let sortKey = table.sortKey { parts.append((sortKey, maxSortKeyBytes)) }
        for (name, limit) in parts {
            let length: Int
            switch item[name] {
            case .s(let text)?: length = text.utf8.count
            case .b(let bytes)?: length = bytes.count
            case .n(let digits)?: length = max(1, digits.utf8.count)
            case nil: throw DynamoDBError(.invalidKey, detail: "key attribute \(name) missing")
            default: throw DynamoDBError(.invalidKey, detail: "key attribute \(name) is not S, N or B")
            }
            guard length > 0 else { throw DynamoDBError(.invalidKey, detail: "key attribute \(name) is empty") }
            guard length <= limit else {
                throw DynamoDBError(
                    .keyTooLarge,
                    detail: "key attribute \(name) is \(length) bytes; the limit is \(limit)"
                )
            }
        }
    }
}
