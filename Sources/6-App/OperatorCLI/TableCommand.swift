internal import AWSJSON
internal import AttestCore
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import HTTPClient

/// `attestgate table create|describe [--table NAME]`: the single table of docs/api.md section 6 (string keys
/// `PK`/`SK`, on-demand billing, TTL on `TTL`) against `DYNAMODB_ENDPOINT` or the regional endpoint.
///
/// JSON on stdout; exit 0 on success, 1 when DynamoDB refused or failed, 2 for a usage error.
/// `create` is idempotent: an existing table is described (and its TTL switched on) instead.
enum TableCommand {
    static let usage = "usage: attestgate table create|describe [--table NAME]   (default: $TABLE_NAME)"

    static func run(
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        guard let action = arguments.first, ["create", "describe"].contains(action) else {
            return CLIOutput.usageError(usage)
        }
        var tableName = environment["TABLE_NAME"]
        var rest = arguments.dropFirst()
        while let flag = rest.popFirst() {
            guard flag == "--table", let value = rest.popFirst(), !value.isEmpty else {
                return CLIOutput.usageError(usage)
            }
            tableName = value
        }
        guard let tableName, !tableName.isEmpty else {
            return CLIOutput.usageError("no table: pass --table or set TABLE_NAME")
        }

        let settings: AWSEnvironment
        do {
            settings = try AWSEnvironment(environment)
        } catch {
            return CLIOutput.failure(error.reason.slug, error.detail)
        }
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(settings),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        let table = Table(name: tableName)
        do {
            var created = false
            if action == "create" {
                do {
                    _ = try await client.createTable(table, deadline: .after(.seconds(30)))
                    created = true
                } catch  where error.reason == DynamoDBError.Reason(AWSError.Reason.resourceInUse) {
                    created = false  // already there: describe it and make sure TTL is on
                }
                try await waitUntilActive(client, tableName)
                try await client.updateTimeToLive(
                    table: tableName,
                    attribute: Table.ttlAttribute,
                    enabled: true,
                    deadline: .after(.seconds(30))
                )
            }
            var output = try await describe(client, tableName)
            output["endpoint"] = .string(settings.dynamoDBURL)
            if action == "create" { output["created"] = .bool(created) }
            CLIOutput.json(.object(output))
            return 0
        } catch {
            return CLIOutput.failure(error.reason.slug, error.detail)
        }
    }

    private static func describe(
        _ client: DynamoDBClient,
        _ name: String
    ) async throws(DynamoDBError) -> [String: JSONValue] {
        let description = try await client.describeTable(name, deadline: .after(.seconds(30)))
        let ttl = try await client.describeTimeToLive(table: name, deadline: .after(.seconds(30)))
        return [
            "table": .string(description.name),
            "status": .string(description.status),
            "billingMode": .string(description.billingMode),
            "keySchema": .array(
                description.keySchema.map { .object(["attribute": .string($0.name), "keyType": .string($0.type)]) }
            ),
            "attributeDefinitions": .array(
                description.attributeDefinitions.map {
                    .object(["attribute": .string($0.name), "type": .string($0.type)])
                }
            ),
            "ttl": .object(["attribute": ttl.attribute.map(JSONValue.string) ?? .null, "status": .string(ttl.status)]),
        ]
    }

    /// Real DynamoDB creates tables asynchronously; TTL can only be set once the table is ACTIVE.
    private static func waitUntilActive(_ client: DynamoDBClient, _ name: String) async throws(DynamoDBError) {
        for _ in 0..<60 {
            if try await client.describeTable(name, deadline: .after(.seconds(30))).status == "ACTIVE" { return }
            try? await Task.sleep(for: .seconds(1))
        }
        throw DynamoDBError(
            DynamoDBError.Reason(AWSError.Reason.deadlineExceeded),
            detail: "table not ACTIVE after 60 s"
        )
    }
}
