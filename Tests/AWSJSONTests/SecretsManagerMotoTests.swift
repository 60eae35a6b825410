import AWSJSON
import AttestCore
import FoundationEssentials
import HTTPClient
import SecretsManager
import SigV4
import TestSupport
import Testing

/// `GetSecretValue` against moto's Secrets Manager (same server as DynamoDB, from `DYNAMODB_ENDPOINT`).
@Suite(
    .enabled(
        if: LocalDynamoDB.endpoint != nil,
        Comment(rawValue: LocalDynamoDB.skipMessage)
    )
)
struct SecretsManagerMotoTests {
    let endpoint = LocalDynamoDB.endpoint ?? ""
    let credentials = SigV4Credentials(accessKeyID: "testing", secretAccessKey: "testing", sessionToken: "testing")

    func client() -> SecretsManagerClient {
        SecretsManagerClient(
            credentials: credentials,
            region: "us-east-1",
            endpoint: endpoint,
            transport: CurlTransport(),
            random: ConstantRandom()
        )
    }

    @Test func readsStringAndBinarySecrets() async throws {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let manager = client()
        _ = try await manager.client.call(
            "CreateSecret",
            .object(["Name": .string("text-\(suffix)"), "SecretString": .string(#"{"api_key":"k"}"#)]),
            deadline: .after(.seconds(60))
        )
        _ = try await manager.client.call(
            "CreateSecret",
            .object(["Name": .string("blob-\(suffix)"), "SecretBinary": .string(Bytes.base64([1, 2, 3]))]),
            deadline: .after(.seconds(60))
        )
        #expect(
            try await manager.getSecretValue("text-\(suffix)", deadline: .after(.seconds(60)))
                == .string(#"{"api_key":"k"}"#)
        )
        #expect(
            try await manager.getSecretValue("blob-\(suffix)", deadline: .after(.seconds(60))) == .binary([1, 2, 3])
        )
        await #expect(throws: AWSError(.resourceNotFound)) {
            try await manager.getSecretValue("missing-\(suffix)", deadline: .after(.seconds(60)))
        }
    }
}
