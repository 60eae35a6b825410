import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import Glibc
import HTTPClient
import TestSupport
import Testing

@testable import Gate

/// A fresh table on the moto server that `make test` starts (`DYNAMODB_ENDPOINT`), one per test.
enum MotoTable {
    static var endpoint: String? { LocalDynamoDB.endpoint }

    /// A new table, and the gate's view of it, its requests sent through `hook` when given.
    static func make(hook: ResendingTransport? = nil) async throws -> GateTable {
        let endpoint = try #require(
            endpoint,
            "DYNAMODB_ENDPOINT is unset: run through `make test` (local-harness/with_moto.sh)"
        )
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
            "AWS_REGION": "us-east-1", "DYNAMODB_ENDPOINT": endpoint,
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment),
            transport: hook ?? CurlTransport(),
            random: SecureRandom()
        )
        let table = Table(name: "gate-\(Bytes.hex(SecureRandom().bytes(6)))")
        _ = try await client.createTable(table, deadline: .after(.seconds(30)))
        return GateTable(client: client, table: table, random: SecureRandom())
    }

    /// Another view of the same table (a second Lambda instance, or one whose requests go through `hook`).
    static func sibling(of table: GateTable, hook: ResendingTransport? = nil) throws -> GateTable {
        let endpoint = try #require(endpoint)
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": endpoint,
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment),
            transport: hook ?? CurlTransport(),
            random: SecureRandom()
        )
        return GateTable(client: client, table: table.table, random: SecureRandom())
    }
}
