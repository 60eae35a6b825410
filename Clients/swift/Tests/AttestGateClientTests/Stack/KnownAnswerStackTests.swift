import Foundation
import Testing

@testable import AttestGateClient

/// The server itself as the oracle of the client-data hash: with the wire vectors' first challenge planted for
/// a device ID, an assertion over the vectors' constant `clientDataHash` (signed whatever the library asked
/// for) is accepted for the library's request, so the real server's hash of the bytes it received is that
/// constant. The control: the same with one bit flipped is refused.
@Suite(.enabled(if: LocalStack.isAvailable, "needs the local stack: make swift-client-check"))
struct KnownAnswerStackTests {
    func vector() throws -> WireVectorTests.Vectors.Request {
        try #require(WireVectorTests.vectors.requestBinding.first { $0.method == "POST" && $0.path == "/v1/generate" })
    }

    func call(signing hash: [UInt8]) async throws -> (Outcome, StackInstall) {
        let vector = try vector()
        let install = try StackInstall()
        let client = install.client(appAttest: FixedHashSigner(inner: install.enclave, clientDataHash: hash))
        #expect(await client.prepare() == .registered(binding: "bound"))
        let expires = Int64(Date().timeIntervalSince1970) + 3600
        try await LocalStack.plantChallenge(deviceID: install.deviceID, challenge: vector.challenge, expiresAt: expires)
        await client.api.pool.offer(Challenge(value: vector.challenge, expiresAt: expires))
        return (await client.post("/v1/generate", body: try #require(Bytes.fromBase64(vector.body))), install)
    }

    @Test func theServerComputesTheKnownClientDataHashForTheLibrarysRequest() async throws {
        let vector = try vector()
        let hash = try #require(hex(vector.clientDataHash))
        let (outcome, install) = try await call(signing: hash)
        guard case .served = outcome else {
            Issue.record("the server refused the known answer: \(outcome)")
            return
        }
        let sent = try #require(install.transport.sent(to: "/v1/generate").first?.request)
        #expect(sent.header("X-Attest-Challenge") == vector.challenge)
        #expect(sent.header("X-Attest-Client-Data") == vector.header)
    }

    @Test func aHashOneBitOffIsRefused() async throws {
        var hash = try #require(hex(try vector().clientDataHash))
        hash[31] ^= 1
        let (outcome, install) = try await call(signing: hash)
        guard case .attestationRequired = outcome else {
            Issue.record("expected attestationRequired, got \(outcome)")
            return
        }
        #expect(install.transport.sent(to: "/v1/generate").map(\.status) == [403, 403, 403])
    }

    private func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}
