import Dispatch
import Foundation

@testable import AttestGateClient

/// The simulated Secure Enclave of the main package (`SimulatedDevice`, signed by the synthetic CA the stack's
/// bootstraps trust), run as `attestgate-demo enclave` and spoken to one JSON line at a time: the stand-in for
/// `DCAppAttestService` and `DCDevice` in the stack tests. Each instance is one iPhone. Requests go one at a
/// time on a queue of their own (blocking pipe I/O never runs on Swift's cooperative pool).
final class ProcessEnclave: AppAttestService, DeviceCheckTokenProvider, @unchecked Sendable {
    // @unchecked: the process and its pipes are set in init and used only on `queue`; `buffer` only on `queue`.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let queue = DispatchQueue(label: "ProcessEnclave")
    private var buffer = Data()

    init() throws {
        let environment = LocalStack.environment
        process.executableURL = URL(fileURLWithPath: environment["ATTESTGATE_DEMO"] ?? "")
        process.arguments = [
            "enclave", "--ca", environment["ATTESTGATE_CA"] ?? "", "--team-id", environment["ATTESTGATE_TEAM_ID"] ?? "",
            "--bundle-id", environment["ATTESTGATE_BUNDLE_ID"] ?? "",
        ]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// One request; the answer's members (`ok` true), or `AppAttestError` with the enclave's reason.
    @discardableResult
    func request(_ fields: [String: Any]) async throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: fields) + Data("\n".utf8)
        let answer: Data = try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    try self.input.fileHandleForWriting.write(contentsOf: line)
                    continuation.resume(returning: try self.readLine())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        guard let members = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw StackError("the enclave answered \(String(decoding: answer, as: UTF8.self))")
        }
        guard members["ok"] as? Bool == true else { throw Self.error(members["error"] as? String ?? "") }
        return members
    }

    private func readLine() throws -> Data {
        while true {
            if let end = buffer.firstIndex(of: 0x0a) {
                let line = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[(end + 1)...])
                return Data(line)
            }
            let more = output.fileHandleForReading.availableData
            guard !more.isEmpty else { throw StackError("the enclave process ended") }
            buffer += more
        }
    }

    private static func error(_ slug: String) -> AppAttestError {
        let reasons: [AppAttestError.Reason] = [
            .invalidKey, .serverUnavailable, .featureUnsupported, .invalidInput, .unknownSystemFailure,
        ]
        return AppAttestError(reasons.first { $0.slug == slug } ?? .unknownSystemFailure, detail: slug)
    }

    // AppAttestService

    func isSupported() async -> Bool { (try? await request(["op": "isSupported"]))?["supported"] as? Bool ?? false }

    func generateKey() async throws -> String {
        guard let keyID = try await request(["op": "generateKey"])["keyId"] as? String else {
            throw StackError("keyId")
        }
        return keyID
    }

    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        let answer = try await request([
            "op": "attestKey", "keyId": keyID, "clientDataHash": Bytes.base64(clientDataHash),
        ])
        return Bytes.fromBase64(answer["attestation"] as? String ?? "") ?? []
    }

    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        let answer = try await request([
            "op": "generateAssertion", "keyId": keyID, "clientDataHash": Bytes.base64(clientDataHash),
        ])
        return Bytes.fromBase64(answer["assertion"] as? String ?? "") ?? []
    }

    // DeviceCheckTokenProvider

    func generateToken() async throws -> [UInt8] {
        Bytes.fromBase64(try await request(["op": "deviceCheckToken"])["token"] as? String ?? "") ?? []
    }

    // The test controls.

    /// A reinstall: the enclave forgets every key.
    func reinstall() async throws { try await request(["op": "reinstall"]) }
    /// Apple rejects `keyID` from now on.
    func invalidate(_ keyID: String) async throws { try await request(["op": "invalidate", "keyId": keyID]) }
    /// `isSupported` false (the Simulator, an extension).
    func setSupported(_ value: Bool) async throws { try await request(["op": "setSupported", "value": value]) }
    /// The next `count` attestations answer `serverUnavailable`.
    func failAttestations(_ count: Int) async throws { try await request(["op": "failAttestations", "count": count]) }
}
