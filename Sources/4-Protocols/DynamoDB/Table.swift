/// A table and the names of its key attributes, which the client needs to check keys before sending.
package struct Table: Sendable, Hashable {
    package var name: String
    package var partitionKey: String
    /// nil for a table without a sort key.
    package var sortKey: String?

    /// - Parameters: the defaults are docs/api.md section 6's single table: string keys `PK` and `SK`.
    package init(name: String, partitionKey: String = "PK", sortKey: String? = "SK") {
        self.name = name
        self.partitionKey = partitionKey
        self.sortKey = sortKey
    }

    /// The TTL attribute of docs/api.md section 6.
    package static let ttlAttribute = "TTL"
}
