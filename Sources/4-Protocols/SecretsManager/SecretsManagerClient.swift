package import AWSJSON
package import AttestCore
package import HTTPClient
package import SigV4

/// Secrets Manager over AWS JSON 1.1: only `GetSecretValue`, which later layers use to read the Google
/// service-account key, the DeviceCheck key and the upstream API key at cold start.
package struct SecretsManagerClient: Sendable {
    package let client: AWSJSONClient

    /// - Parameters:
    ///   - endpoint: nil means `https://secretsmanager.<region>.amazonaws.com`.
    package init(
        credentials: SigV4Credentials,
        region: String,
        endpoint: String? = nil,
        transport: any HTTPTransport,
        clock: any WallClock = SystemClock(),
        random: any RandomSource
    ) {
        let configuration = AWSServiceConfiguration(
            endpoint: endpoint ?? "https://secretsmanager.\(region).amazonaws.com",
            region: region,
            signingName: "secretsmanager",
            targetPrefix: "secretsmanager",
            protocolVersion: .json11,
            credentials: credentials
        )
        self.client = AWSJSONClient(configuration: configuration, transport: transport, clock: clock, random: random)
    }

    /// A secret's value: text (`SecretString`) or bytes (`SecretBinary`). `description` never shows it.
    package enum SecretValue: Sendable, Hashable, CustomStringConvertible {
        case string(String)
        case binary([UInt8])

        /// The value as bytes (UTF-8 for text).
        package var bytes: [UInt8] {
            switch self {
            case .string(let text): Array(text.utf8)
            case .binary(let bytes): bytes
            }
        }

        package var description: String {
            switch self {
            case .string(let text): "SecretValue.string(\(text.utf8.count) bytes)"
            case .binary(let bytes): "SecretValue.binary(\(bytes.count) bytes)"
            }
        }
    }

    /// `GetSecretValue` for the current version of `secretID` (a name or an ARN).
    /// - Throws: `AWSError` (`aws.resource_not_found` for an unknown secret, `aws.malformed_response` when
    ///   the answer carries neither `SecretString` nor a valid base64 `SecretBinary`).
    package func getSecretValue(_ secretID: String, deadline: Deadline) async throws(AWSError) -> SecretValue {
        let output = try await client.call(
            "GetSecretValue",
            .object(["SecretId": .string(secretID)]),
            deadline: deadline
        )
        if let text = output["SecretString"]?.stringValue { return .string(text) }
        if let encoded = output["SecretBinary"]?.stringValue, let bytes = Bytes.fromBase64(encoded) {
            return .binary(bytes)
        }
        throw AWSError(.malformedResponse, detail: "GetSecretValue: neither SecretString nor SecretBinary")
    }
}
