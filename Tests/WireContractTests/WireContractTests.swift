import AttestCore
import Crypto
import Testing
import WireContract

/// The hash rules of docs/api.md, against known answers.
@Suite struct WireContractTests {
    @Test func requestBindingIsLowerHexSHA256OfTheClientDataBytes() {
        let data = ClientData(challenge: "c", method: "POST", path: "/v1/generate", body: Array("abc".utf8))
        // SHA-256("abc"), FIPS 180-2.
        #expect(data.bodySHA256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(data.playRequestHash == Bytes.hex(Digest.sha256(data.bytes)))
        #expect(data.appAttestClientDataHash == Digest.sha256(data.bytes))
    }

    @Test func theDocumentRoundTripsThroughItsHeader() throws {
        let data = ClientData(challenge: "q83v", method: "POST", path: "/v1/tutor/d1/c1", body: [1, 2, 3])
        let decoded = try #require(ClientData(header: data.header))
        #expect(decoded == data && decoded.bytes == data.bytes)
        let fields = try JSONValue.parse(data.bytes).objectValue?.keys.sorted()
        #expect(fields == ["bodySHA256", "challenge", "method", "path"])
    }

    @Test func challengeBindingHashesDeviceIDNewlineChallenge() {
        let deviceID = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
        let challenge = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
        let expected = Bytes.hex(Digest.sha256(Array("\(deviceID)\n\(challenge)".utf8)))
        let hash = ChallengeBinding.playRequestHash(deviceID: deviceID, challengeBase64: challenge)
        #expect(hash == expected)
        #expect(hash.count == 64 && hash == hash.lowercased())
        #expect(hash != ChallengeBinding.playRequestHash(deviceID: deviceID.lowercased(), challengeBase64: challenge))
    }

    @Test func challengeBindingKnownAnswer() {
        // printf 'a\nb' | sha256sum
        #expect(
            ChallengeBinding.playRequestHash(deviceID: "a", challengeBase64: "b")
                == "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78"
        )
        #expect(
            ChallengeBinding.appAttestClientDataHash(challenge: Array("abc".utf8)) == Digest.sha256(Array("abc".utf8))
        )
    }

    @Test func headerNamesAreTheDocumentedSpellingsAndTheServerKeysTheirLowerCase() {
        #expect(WireHeader.deviceID.name == "X-Device-ID" && WireHeader.deviceID.key == "x-device-id")
        #expect(WireHeader.nextChallengeExpires.key == "x-attest-next-challenge-expires")
    }
}
