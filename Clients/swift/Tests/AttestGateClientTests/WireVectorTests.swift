import Foundation
import Testing

@testable import AttestGateClient

/// The client's client-data document, hashes, escapes and header names against known answers that the
/// server's own code wrote (`attestgate-demo wire-vectors`: `WireContract` and its JSON serializer).
/// `Clients/swift/check.sh` writes the vectors again from the server's code and fails when this file
/// differs, so an identity shown here is an identity with the server as it is now.
@Suite struct WireVectorTests {
    struct Vectors: Decodable {
        struct Request: Decodable {
            let challenge, method, path, body, document, header, bodySHA256, clientDataHash, requestHash: String
        }
        struct ChallengeVector: Decodable {
            let deviceID, challenge, clientDataHash, requestHash: String
        }
        struct StringVector: Decodable {
            let value, json: String
        }
        let headers: [String]
        let debugTokenHeader: String
        let requestBinding: [Request]
        let challengeBinding: [ChallengeVector]
        let strings: [StringVector]
    }

    static let vectors: Vectors = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/wire-vectors.json")
        // A missing or unreadable fixture fails every test below with a clear message, not a crash.
        guard let data = try? Data(contentsOf: url), let vectors = try? JSONDecoder().decode(Vectors.self, from: data)
        else {
            return Vectors(headers: [], debugTokenHeader: "", requestBinding: [], challengeBinding: [], strings: [])
        }
        return vectors
    }()

    @Test func theFixtureHoldsEveryKindOfVector() {
        #expect(Self.vectors.requestBinding.count >= 5)
        #expect(Self.vectors.challengeBinding.count >= 5)
        #expect(Self.vectors.strings.count >= 5)
    }

    @Test func theClientDataDocumentAndItsHashesAreTheServersByteForByte() throws {
        for vector in Self.vectors.requestBinding {
            let body = try #require(Bytes.fromBase64(vector.body))
            let data = try ClientData(challenge: vector.challenge, method: vector.method, path: vector.path, body: body)
            #expect(Bytes.base64(data.bytes) == vector.document, "document of \(vector.method) \(vector.path)")
            #expect(data.header == vector.header)
            #expect(data.bodySHA256 == vector.bodySHA256)
            #expect(Bytes.hex(data.appAttestClientDataHash) == vector.clientDataHash)
            #expect(data.playRequestHash == vector.requestHash)
        }
    }

    @Test func challengeBindingHashesAreTheServers() throws {
        for vector in Self.vectors.challengeBinding {
            let challenge = try #require(Bytes.fromBase64(vector.challenge))
            #expect(Bytes.hex(ChallengeBinding.appAttestClientDataHash(challenge: challenge)) == vector.clientDataHash)
            #expect(
                ChallengeBinding.playRequestHash(deviceID: vector.deviceID, challenge: vector.challenge)
                    == vector.requestHash
            )
        }
    }

    @Test func stringsAreEscapedAsTheServersSerializerEscapesThem() {
        for vector in Self.vectors.strings {
            #expect(String(decoding: JSONText.quoted(vector.value), as: UTF8.self) == vector.json)
        }
    }

    @Test func theHeaderNamesAreTheServers() {
        let client = [
            WireHeader.deviceID, WireHeader.challenge, WireHeader.appAttestKeyID, WireHeader.appAttestAssertion,
            WireHeader.playIntegrityToken, WireHeader.deviceCheckToken, WireHeader.clientData,
            WireHeader.quotaRemaining, WireHeader.nextChallenge, WireHeader.nextChallengeExpires,
        ]
        #expect(client == Self.vectors.headers)
        #if DEBUG
        #expect(DebugToken.header == Self.vectors.debugTokenHeader)
        #endif
    }
}
