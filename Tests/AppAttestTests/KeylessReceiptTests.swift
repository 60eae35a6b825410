import AttestCore
import CBOR
import Crypto
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest

/// The receipt's fast path (`SignedData.keylessVerifyingSignature(of:)`: no PKCS#7 or key decoders, used
/// once the signer's chain is cached) reads every real capture exactly as OpenSSL's full parser does, and
/// never decides a refusal: anything it does not accept goes through the full path, with its reason.
@Suite struct KeylessReceiptTests {
    static func receipt(of attestation: [UInt8]) throws -> [UInt8] {
        try #require(CBORDecoder().decode(attestation)["attStmt"]?["receipt"]?.bytesValue)
    }

    /// Content, signer and other certificates equal to OpenSSL's `d2i_PKCS7` + `PKCS7_verify`.
    @Test(arguments: FixtureLoader.attestationFixtures) func everyCaptureReadsAsTheFullParserReadsIt(
        _ name: String
    ) throws {
        let bytes = try Self.receipt(of: AttestationFixture(name).attestation)
        let full = try SignedData(verifyingSignatureOf: bytes)
        let keyless = try #require(SignedData.keylessVerifyingSignature(of: bytes))
        #expect(keyless.content == full.content)
        #expect(keyless.signer.derRepresentation == full.signer.derRepresentation)
        #expect(keyless.otherCertificates.map(\.derRepresentation) == full.otherCertificates.map(\.derRepresentation))
    }

    /// Any change to a capture (a flipped byte anywhere, a byte cut or added) is not accepted keyless.
    @Test func aChangedCaptureIsNeverAcceptedKeyless() throws {
        let bytes = try Self.receipt(of: AttestationFixture("apple-guide-2024.json").attestation)
        #expect(SignedData.keylessVerifyingSignature(of: Array(bytes.dropLast())) == nil)
        #expect(SignedData.keylessVerifyingSignature(of: bytes + [0]) == nil)
        #expect(SignedData.keylessVerifyingSignature(of: []) == nil)
        for index in stride(from: 0, to: bytes.count, by: 7) {
            var changed = bytes
            changed[index] ^= 0x01
            let keyless = SignedData.keylessVerifyingSignature(of: changed)
            // A flip inside a certificate's own signature or unused fields may still parse; it must then
            // be the full parser's reading too, and a different chain (so never a cache hit).
            if let keyless {
                let full = try SignedData(verifyingSignatureOf: changed)
                #expect(keyless.content == full.content, "byte \(index)")
                #expect(keyless.signer.derRepresentation == full.signer.derRepresentation, "byte \(index)")
            }
        }
    }

    /// With the signer's chain cached (the fast path's only use), a tampered receipt, another signer and
    /// an expired window are still refused, each with the full path's reason.
    @Test func refusalsWithTheSignerChainCached() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let authority = try SimulatedAppleCA(now: now)
        let device = SyntheticAttestationTests.device(of: authority)
        func receipt(_ options: AttestationOptions = .genuine, by device: SimulatedDevice) throws -> [UInt8] {
            try Self.receipt(
                of: device.attest(SimulatedAppAttestKey(), clientDataHash: [1], now: now, options: options)
            )
        }
        let cache = IntermediateCache()
        let genuine = try receipt(by: device)
        let first = try AppAttestReceipt(verifying: genuine, root: authority.root, at: now, chainCache: cache)
        #expect(SignedData.keylessVerifyingSignature(of: genuine) != nil)
        let second = try AppAttestReceipt(verifying: genuine, root: authority.root, at: now, chainCache: cache)
        #expect(first == second)
        #expect(second.kind == .attest)

        let tampered = try receipt(.genuine.with { $0.receipt.tamperAfterSigning = true }, by: device)
        #expect(SignedData.keylessVerifyingSignature(of: tampered) == nil)
        #expect(throws: AppAttestError(.receiptSignatureInvalid)) {
            try AppAttestReceipt(verifying: tampered, root: authority.root, at: now, chainCache: cache)
        }
        let other = try SimulatedAppleCA(now: now)
        let foreign = try receipt(.genuine.with { $0.receipt.signer = other }, by: device)
        #expect(SignedData.keylessVerifyingSignature(of: foreign) != nil)  // well signed, by an untrusted chain
        #expect(throws: AppAttestError(.receiptUntrusted)) {
            try AppAttestReceipt(verifying: foreign, root: authority.root, at: now, chainCache: cache)
        }
        #expect(throws: AppAttestError(.receiptExpired)) {
            try AppAttestReceipt(
                verifying: genuine,
                root: authority.root,
                at: authority.root.notAfter.addingTimeInterval(1),
                chainCache: cache
            )
        }
    }
}
