import AttestCore
import CBOR
import Crypto
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest

/// The receipt's fast path (`SignedData.appAttestEnvelope(_:)`: no PKCS#7, certificate or key decoders,
/// used once the signer's chain is cached) reads every real capture exactly as OpenSSL's full parser does,
/// and never decides a refusal: anything it does not accept goes through the full path, with its reason.
@Suite struct KeylessReceiptTests {
    static func receipt(of attestation: [UInt8]) throws -> [UInt8] {
        try #require(CBORDecoder().decode(attestation)["attStmt"]?["receipt"]?.bytesValue)
    }

    /// The envelope's signer key, parsed from its own first certificate (what the cache would hold).
    static func signerKey(_ envelope: SignedData.Envelope) throws -> ECPublicKey {
        try Certificate(derRepresentation: envelope.chainDERs[0], keyDecoding: .deferred).publicKey()
    }

    /// Content, signer and other certificates equal to OpenSSL's `d2i_PKCS7` + `PKCS7_verify`.
    @Test(arguments: FixtureLoader.attestationFixtures) func everyCaptureReadsAsTheFullParserReadsIt(
        _ name: String
    ) throws {
        let bytes = try Self.receipt(of: AttestationFixture(name).attestation)
        let full = try SignedData(verifyingSignatureOf: bytes)
        let envelope = try #require(SignedData.appAttestEnvelope(bytes))
        #expect(envelope.content == full.content)
        #expect(envelope.chainDERs == ([full.signer] + full.otherCertificates).map(\.derRepresentation))
        #expect(envelope.isSigned(by: try full.signer.publicKey()))
    }

    /// A flipped byte anywhere, a byte cut or added: with the capture's chain cached (the fast path's only
    /// use), every variant gets exactly the verdict the full path alone gives it (same fields, or the same
    /// refusal reason).
    @Test func aChangedCaptureGetsTheFullPathsVerdict() throws {
        let fixture = AttestationFixture("apple-guide-2024.json")
        let bytes = try Self.receipt(of: fixture.attestation)
        let root = AppAttestTrust.apple.receiptRoot
        let warm = IntermediateCache()
        _ = try AppAttestReceipt(verifying: bytes, root: root, at: fixture.verifyAt, chainCache: warm)
        func verdict(_ variant: [UInt8], _ cache: IntermediateCache?) -> Result<AppAttestReceipt, AppAttestError> {
            Result { () throws(AppAttestError) in
                try AppAttestReceipt(verifying: variant, root: root, at: fixture.verifyAt, chainCache: cache)
            }
        }
        var variants = [Array(bytes.dropLast()), bytes + [0], []]
        for index in stride(from: 0, to: bytes.count, by: 5) {
            var changed = bytes
            changed[index] ^= 0x01
            variants.append(changed)
        }
        var accepted = 0
        for (number, variant) in variants.enumerated() {
            let full = verdict(variant, nil)
            #expect(verdict(variant, warm) == full, "variant \(number)")
            if case .success = full { accepted += 1 }
        }
        #expect(accepted < variants.count / 2)  // most flips break the structure or the signature
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
        #expect(SignedData.appAttestEnvelope(genuine) != nil)
        let second = try AppAttestReceipt(verifying: genuine, root: authority.root, at: now, chainCache: cache)
        #expect(first == second)
        #expect(second.kind == .attest)

        let tampered = try receipt(.genuine.with { $0.receipt.tamperAfterSigning = true }, by: device)
        let envelope = try #require(SignedData.appAttestEnvelope(tampered))  // well-formed, badly signed
        #expect(!envelope.isSigned(by: try Self.signerKey(envelope)))
        #expect(throws: AppAttestError(.receiptSignatureInvalid)) {
            try AppAttestReceipt(verifying: tampered, root: authority.root, at: now, chainCache: cache)
        }
        let other = try SimulatedAppleCA(now: now)
        let foreign = try receipt(.genuine.with { $0.receipt.signer = other }, by: device)
        let foreignEnvelope = try #require(SignedData.appAttestEnvelope(foreign))  // well signed, untrusted chain
        #expect(foreignEnvelope.isSigned(by: try Self.signerKey(foreignEnvelope)))
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
