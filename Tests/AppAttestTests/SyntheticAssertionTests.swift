import Crypto
import CryptoTestSupport
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest

@Suite struct SyntheticAssertionTests {
    static let authority = try! SimulatedAppleCA(now: Date(timeIntervalSince1970: 1_790_000_000))
    let device = SimulatedDevice(
        teamId: "ABCDE12345",
        bundleId: "com.example.gate",
        environment: .production,
        authority: authority
    )
    let verifier = AppAttestVerifier(
        teamId: "ABCDE12345",
        bundleIds: ["com.example.gate"],
        environment: .production,
        trust: .synthetic(root: authority.root)
    )
    let clientDataHash = Digest.sha256(Array(#"{"challenge":"abc","method":"POST"}"#.utf8))

    @Test func countersIncreaseAndEachAssertionVerifiesOnce() throws {
        var key = try SimulatedAppAttestKey()
        var stored: UInt32 = 0
        for expected in 1...3 as ClosedRange<UInt32> {
            let assertion = try device.assert(&key, clientDataHash: clientDataHash)
            stored = try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: stored
            )
            #expect(stored == expected)
        }
    }

    @Test func aReplayedCounterIsRefused() throws {
        var key = try SimulatedAppAttestKey()
        let assertion = try device.assert(&key, clientDataHash: clientDataHash)
        let counter = try verifier.verifyAssertion(
            publicKey: key.publicKey,
            assertion: assertion,
            clientDataHash: clientDataHash,
            storedCounter: 0
        )
        #expect(throws: AppAttestError(.assertionCounterReplay)) {
            try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: counter
            )
        }
    }

    @Test func anotherKeysSignatureIsRefused() throws {
        var key = try SimulatedAppAttestKey()
        let other = try SimulatedAppAttestKey()
        let assertion = try device.assert(&key, clientDataHash: clientDataHash)
        #expect(throws: AppAttestError(.assertionBadSignature)) {
            try verifier.verifyAssertion(
                publicKey: other.publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: 0
            )
        }
    }

    @Test func differentClientDataIsRefused() throws {
        var key = try SimulatedAppAttestKey()
        let assertion = try device.assert(&key, clientDataHash: clientDataHash)
        #expect(throws: AppAttestError(.assertionBadSignature)) {
            try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: assertion,
                clientDataHash: Digest.sha256([1]),
                storedCounter: 0
            )
        }
    }

    @Test func anotherAppIsRefused() throws {
        let key = try SimulatedAppAttestKey()
        let assertion = try device.assertion(
            key,
            counter: 1,
            clientDataHash: clientDataHash,
            appId: "ABCDE12345.com.example.other"
        )
        #expect(throws: AppAttestError(.assertionAppIdMismatch)) {
            try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: assertion,
                clientDataHash: clientDataHash,
                storedCounter: 0
            )
        }
    }

    @Test func malformedAssertionsAreRefused() throws {
        let key = try SimulatedAppAttestKey()
        #expect(throws: AppAttestError(.assertionNotCBOR)) {
            try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: [0xa2, 0x01],
                clientDataHash: clientDataHash,
                storedCounter: 0
            )
        }
        #expect(throws: AppAttestError(.assertionMalformed)) {
            try verifier.verifyAssertion(
                publicKey: key.publicKey,
                assertion: [0xa0],
                clientDataHash: clientDataHash,
                storedCounter: 0
            )
        }
    }

    @Test func signaturesComeInBothEncodings() throws {
        let key = try P256PrivateKey()
        let signature = try key.signature(for: Array("message".utf8))
        #expect(signature.rawRepresentation.count == 64)
        #expect(try ECDSASignature(rawRepresentation: signature.rawRepresentation) == signature)
        #expect(key.publicKey.isValidSHA256Signature(signature.derRepresentation, for: Array("message".utf8)))
        #expect(!key.publicKey.isValidSHA256Signature(signature.derRepresentation, for: Array("massage".utf8)))
        let reloaded = try P256PrivateKey(pemRepresentation: key.pemRepresentation)
        #expect(reloaded.publicKey == key.publicKey)
    }
}

@Suite struct StoredKeyAndTrustTests {
    @Test func storedKeyBytesInEitherFormVerify() throws {
        let authority = try SimulatedAppleCA(now: Date(timeIntervalSince1970: 1_790_000_000))
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .development,
            authority: authority
        )
        let verifier = AppAttestVerifier(
            teamId: "ABCDE12345",
            bundleIds: ["com.example.gate"],
            environment: .development,
            trust: try .overridden(rootPEM: authority.rootPEM)
        )
        var key = try SimulatedAppAttestKey()
        let hash = Digest.sha256([7])
        for (index, stored) in [key.publicKey.derRepresentation, key.publicKey.x962Representation].enumerated() {
            let assertion = try device.assert(&key, clientDataHash: hash)
            #expect(
                try verifier.verifyAssertion(
                    publicKeyBytes: stored,
                    assertion: assertion,
                    clientDataHash: hash,
                    storedCounter: UInt32(index)
                )
                    == UInt32(index + 1)
            )
        }
        let p384 = try PrivateKey(generating: .p384)
        #expect(throws: AppAttestError(.keyUnsupported)) {
            try verifier.verifyAssertion(
                publicKeyBytes: p384.publicKeyDER,
                assertion: [0xa0],
                clientDataHash: hash,
                storedCounter: 0
            )
        }
        #expect(throws: AppAttestError(.inputInvalid)) { try AppAttestTrust.overridden(rootPEM: "not a PEM") }
    }
}
