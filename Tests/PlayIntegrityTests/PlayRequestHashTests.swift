import AttestCore
import Crypto
import Testing

@testable import PlayIntegrity

@Suite struct PlayRequestHashTests {
    @Test func requestBindingIsLowerHexSHA256OfTheClientDataBytes() {
        // SHA-256("abc"), FIPS 180-2.
        #expect(
            PlayRequestHash.requestBinding(clientData: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
    }

    @Test func challengeBindingHashesDeviceIDNewlineChallenge() {
        let deviceID = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
        let challenge = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
        let expected = Bytes.hex(Digest.sha256(Array("\(deviceID)\n\(challenge)".utf8)))
        let hash = PlayRequestHash.challengeBinding(deviceID: deviceID, challengeBase64: challenge)
        #expect(hash == expected)
        #expect(hash.count == 64 && hash == hash.lowercased())
        #expect(hash != PlayRequestHash.challengeBinding(deviceID: deviceID.lowercased(), challengeBase64: challenge))
    }

    @Test func challengeBindingKnownAnswer() {
        // printf 'a\nb' | sha256sum
        #expect(
            PlayRequestHash.challengeBinding(deviceID: "a", challengeBase64: "b")
                == "7e18f737311b2dc3b2f269dd78396b0351f14fb66efa879f768cb23181883c78"
        )
    }
}
