import AttestCore
import Crypto
import Testing
import WireContract

@testable import Gate

@Suite struct ClientDataTests {
    let body = Array(#"{"photo":"abc"}"#.utf8)
    let challenge = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="

    func header(
        challenge: String? = nil,
        method: String = "POST",
        path: String = "/v1/generate",
        body: [UInt8]? = nil
    ) -> String {
        ClientData(challenge: challenge ?? self.challenge, method: method, path: path, body: body ?? self.body).header
    }

    @Test func matchingRequestPassesAndHashesTheExactBytes() throws {
        let text = header()
        let data = try #require(ClientData(header: text))
        #expect(data.mismatch(challengeHeader: challenge, method: "POST", rawPath: "/v1/generate", body: body) == nil)
        #expect(data.appAttestClientDataHash == Digest.sha256(Bytes.fromBase64(text)!))
        #expect(data.playRequestHash == Bytes.hex(Digest.sha256(Bytes.fromBase64(text)!)))
    }

    @Test(
        arguments: [
            ("other-challenge", "POST", "/v1/generate", "binding.challenge_mismatch"),
            (nil, "PUT", "/v1/generate", "binding.method_mismatch"),
            (nil, "POST", "/v1/tutor/d1/c1", "binding.path_mismatch"),
        ] as [(String?, String, String, String)]
    )
    func eachChangedFieldIsRefused(challenge: String?, method: String, path: String, reason: String) throws {
        let data = try #require(ClientData(header: header(challenge: challenge, method: method, path: path)))
        #expect(
            data.mismatch(challengeHeader: self.challenge, method: "POST", rawPath: "/v1/generate", body: body)
                == reason
        )
    }

    @Test func changedBodyIsRefused() throws {
        let data = try #require(ClientData(header: header()))
        let other = Array(#"{"photo":"xyz"}"#.utf8)
        #expect(
            data.mismatch(challengeHeader: challenge, method: "POST", rawPath: "/v1/generate", body: other)
                == "binding.body_mismatch"
        )
    }

    @Test(arguments: [
        "", "not base64!", Bytes.base64(Array("[1,2]".utf8)), Bytes.base64(Array(#"{"challenge":1}"#.utf8)),
        Bytes.base64([UInt8](repeating: 0x20, count: 3000)),
    ])
    func malformedHeadersAreRefused(text: String) {
        #expect(ClientData(header: text) == nil)
    }

    @Test func challengeBindingHashesMatchTheSeed() {
        // docs/api.md §2 (binding `challenge`): hex SHA-256 over "<deviceId>\n<challenge b64>".
        let hash = ChallengeBinding.playRequestHash(deviceID: "d", challengeBase64: "c")
        #expect(hash == Bytes.hex(Digest.sha256(Array("d\nc".utf8))))
        #expect(hash.count == 64)
        #expect(ChallengeBinding.appAttestClientDataHash(challenge: [1, 2]) == Digest.sha256([1, 2]))
    }
}
