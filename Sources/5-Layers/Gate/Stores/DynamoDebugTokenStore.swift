internal import AWSJSON
internal import AttestCore
internal import DynamoDB

/// Debug tokens on the table: `DEBUG_TOKENS` / `TOKEN#{sha256 hex}` with `name`, `created_by`, `created_at`,
/// `expires_at`, `routes` (a list of features; empty: every route), `revoked_at` and `revoked_by` once revoked,
/// and `TTL` 30 days after expiry. One partition: tokens are few, and `list` reads them in one query.
package struct DynamoDebugTokenStore: DebugTokenStore {
    let table: GateTable

    package init(table: GateTable) { self.table = table }

    static let partition = "DEBUG_TOKENS"

    static func key(_ hash: String) -> Item { GateTable.key(partition, "TOKEN#\(hash)") }

    package func token(hash: String) async throws -> DebugToken? {
        let key = Self.key(hash)
        let row = try await table.run("debug_token_read") { deadline throws(DynamoDBError) in
            try await table.client.getItem(table.table, key: key, deadline: deadline)
        }
        return row.flatMap(Self.token(in:))
    }

    /// Stores a new token (never its text); false when one with that hash exists (never, for a minted one).
    package func create(_ token: DebugToken) async throws(StoreError) -> Bool {
        var item = Self.key(token.hash)
        item["name"] = .s(token.name)
        item["created_by"] = .s(token.createdBy)
        item["created_at"] = .number(token.createdAt)
        item["expires_at"] = .number(token.expiresAt)
        item["routes"] = .l(token.routes.map(AttributeValue.s))
        item[Table.ttlAttribute] = .number(token.expiresAt + 30 * 86_400)
        let put = PutItem(table: table.table, item: item, condition: "attribute_not_exists(PK)")
        do {
            _ = try await table.client.putItem(put, deadline: Deadline.forCall())
            return true
        } catch  where error.reason == DynamoDBError.Reason(AWSError.Reason.conditionalCheckFailed) {
            return false
        } catch {
            throw StoreError("debug_token_create", .failed, detail: error.description)
        }
    }

    /// Every token on the table (kept until 30 days after its expiry).
    package func list() async throws(StoreError) -> [DebugToken] {
        var tokens: [DebugToken] = []
        var start: Item?
        repeat {
            let query = Query(
                table: table.table,
                keyCondition: "\(name: "PK") = \(value: .s(Self.partition))",
                exclusiveStartKey: start
            )
            let page = try await table.run("debug_token_list") { deadline throws(DynamoDBError) in
                try await table.client.query(query, deadline: deadline)
            }
            tokens += page.items.compactMap(Self.token(in:))
            start = page.lastEvaluatedKey
        } while start != nil && tokens.count < 10_000
        return tokens
    }

    /// Revokes `token` from now on; false when it already was.
    package func revoke(_ token: DebugToken, by actor: String, at now: Int64) async throws(StoreError) -> Bool {
        let outcome = try await table.update(
            "debug_token_revoke",
            key: Self.key(token.hash),
            update: UpdateExpression(set: [
                "\(name: "revoked_at") = \(value: .number(now))", "\(name: "revoked_by") = \(value: .s(actor))",
            ]),
            condition: "attribute_exists(PK) AND attribute_not_exists(\(name: "revoked_at"))",
            tokenAttribute: "revoke_write"
        )
        return outcome.succeeded
    }

    static func token(in row: Item) -> DebugToken? {
        guard let sk = row["SK"]?.stringValue, sk.hasPrefix("TOKEN#"), let name = row["name"]?.stringValue,
            let expiresAt = row["expires_at"]?.intValue
        else { return nil }
        var routes: [String] = []
        if case .l(let values)? = row["routes"] { routes = values.compactMap(\.stringValue) }
        return DebugToken(
            name: name,
            hash: String(sk.dropFirst("TOKEN#".count)),
            createdBy: row["created_by"]?.stringValue ?? "",
            createdAt: row["created_at"]?.intValue ?? 0,
            expiresAt: expiresAt,
            routes: routes,
            revokedAt: row["revoked_at"]?.intValue,
            revokedBy: row["revoked_by"]?.stringValue
        )
    }
}
