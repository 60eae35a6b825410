import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import Glibc
import HTTPClient
import Testing

@testable import Gate

/// A fresh table on the moto server that `make test` starts (`DYNAMODB_ENDPOINT`), one per test.
enum MotoTable {
    static var endpoint: String? { getenv("DYNAMODB_ENDPOINT").map { String(cString: $0) } }

    /// A new table, and the gate's view of it with the given resend hook and write safety.
    static func make(
        hook: ResendHook? = nil,
        safety: GateTable.WriteSafety = .ownWriteTokens
    ) async throws -> GateTable {
        let endpoint = try #require(
            endpoint,
            "DYNAMODB_ENDPOINT is unset: run through `make test` (local-harness/with_moto.sh)"
        )
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
            "AWS_REGION": "us-east-1", "DYNAMODB_ENDPOINT": endpoint,
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment).with(resendHook: hook),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        let table = Table(name: "gate-\(Bytes.hex(SecureRandom().bytes(6)))")
        _ = try await client.createTable(table, deadline: .after(.seconds(30)))
        return GateTable(client: client, table: table, random: SecureRandom(), safety: safety)
    }

    /// Another view of the same table (a second Lambda instance, or one with a resend hook).
    static func sibling(
        of table: GateTable,
        hook: ResendHook? = nil,
        safety: GateTable.WriteSafety = .ownWriteTokens
    ) throws -> GateTable {
        let endpoint = try #require(endpoint)
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": endpoint,
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment).with(resendHook: hook),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        return GateTable(client: client, table: table.table, random: SecureRandom(), safety: safety)
    }
}
