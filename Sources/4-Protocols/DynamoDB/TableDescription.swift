package import AttestCore

/// What `CreateTable`/`DescribeTable` say about a table (the fields we use, and the whole document).
package struct TableDescription: Sendable, Hashable {
    package var name: String
    package var status: String
    /// `(attribute, HASH|RANGE)` in schema order.
    package var keySchema: [(name: String, type: String)]
    /// `(attribute, S|N|B)`.
    package var attributeDefinitions: [(name: String, type: String)]
    /// `PAY_PER_REQUEST` or `PROVISIONED` (absent in old tables means provisioned).
    package var billingMode: String
    package var raw: JSONValue

    init(json: JSONValue) throws(DynamoDBError) {
        guard let name = json["TableName"]?.stringValue, let status = json["TableStatus"]?.stringValue else {
            throw DynamoDBError(.malformedItem, detail: "table description without TableName/TableStatus")
        }
        self.name = name
        self.status = status
        self.keySchema = (json["KeySchema"]?.arrayValue ?? []).compactMap { element in
            guard let name = element["AttributeName"]?.stringValue, let type = element["KeyType"]?.stringValue
            else { return nil }
            return (name, type)
        }
        self.attributeDefinitions = (json["AttributeDefinitions"]?.arrayValue ?? []).compactMap { element in
            guard let name = element["AttributeName"]?.stringValue, let type = element["AttributeType"]?.stringValue
            else { return nil }
            return (name, type)
        }
        self.billingMode = json["BillingModeSummary"]?["BillingMode"]?.stringValue ?? "PROVISIONED"
        self.raw = json
    }

    package static func == (lhs: TableDescription, rhs: TableDescription) -> Bool { lhs.raw == rhs.raw }
    package func hash(into hasher: inout Hasher) { hasher.combine(raw) }
}
