import Foundation

@testable import AttestGateClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The local stack the stack tests run against, as `local-harness/client_stack.py --app-attest DEMO` started
/// it (its variables): the real `bootstrap` behind the Lambda harness, moto, the fake upstream, a synthetic
/// Apple CA the bootstraps trust, and the demo that serves a simulated Secure Enclave. Without those
/// variables (a plain `swift test`) the stack suites are skipped.
enum LocalStack {
    static let environment = ProcessInfo.processInfo.environment

    /// Whether the tests run inside the stack.
    static var isAvailable: Bool {
        ["ATTESTGATE_FRONT", "ATTESTGATE_DEMO", "ATTESTGATE_CA"].allSatisfy { environment[$0] != nil }
    }

    static var front: String { environment["ATTESTGATE_FRONT"] ?? "" }
    static var ceilingFront: String { environment["ATTESTGATE_CEILING_FRONT"] ?? "" }
    static var dynamoDB: String { environment["ATTESTGATE_DYNAMODB"] ?? "" }
    static var table: String { environment["ATTESTGATE_TABLE"] ?? "" }
    static var cli: String { environment["ATTESTGATE_CLI"] ?? "" }
    static var debugTokens: Bool { environment["ATTESTGATE_DEBUG_TOKENS"] == "on" }

    static func newDeviceID() -> String { UUID().uuidString.lowercased() }

    /// Runs the operator CLI with the stack's settings; returns its exit status and standard output.
    static func operatorCLI(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: cli)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Writes a challenge row as the server's challenge store does (docs/api.md section 6: `DEVICE#{id}` /
    /// `ATTEST_CHALLENGE#{challenge, base64url}`, `expires_at`), so a test can prove a call whose challenge it
    /// chose: the known-answer vector. moto takes the request unsigned.
    static func plantChallenge(deviceID: String, challenge: String, expiresAt: Int64) async throws {
        let bytes = Bytes.fromBase64(challenge) ?? []
        let key = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let item: [String: Any] = [
            "TableName": table,
            "Item": [
                "PK": ["S": "DEVICE#\(deviceID)"], "SK": ["S": "ATTEST_CHALLENGE#\(key)"],
                "expires_at": ["N": "\(expiresAt)"], "TTL": ["N": "\(expiresAt)"],
            ],
        ]
        let response = try await URLSessionTransport().send(
            TransportRequest(
                method: "POST",
                url: dynamoDB,
                headers: [
                    HTTPHeader("Content-Type", "application/x-amz-json-1.0"),
                    HTTPHeader("X-Amz-Target", "DynamoDB_20120810.PutItem"),
                    HTTPHeader(
                        "Authorization",
                        "AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, "
                            + "SignedHeaders=host, Signature=00"
                    ),
                ],
                body: [UInt8](try JSONSerialization.data(withJSONObject: item))
            )
        )
        let body = try await response.body.collect(limit: 1 << 16)
        guard response.status == 200 else {
            throw StackError("PutItem: \(response.status) \(String(decoding: body, as: UTF8.self))")
        }
    }
}

struct StackError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
