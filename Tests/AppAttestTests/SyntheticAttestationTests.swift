import AttestCore
import CBOR
import Crypto
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest

/// A synthetic chain with Apple's structure: the genuine case passes, and each test breaks exactly one
/// condition and requires the matching refusal. Signatures are really verified, nonces recomputed.
@Suite struct SyntheticAttestationTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let authority = try! SimulatedAppleCA(now: now)

    let device = SimulatedDevice(
        teamId: "ABCDE12345",
        bundleId: "com.example.gate",
        environment: .production,
        authority: authority
    )
    let clientDataHash = Digest.sha256(Array("challenge-we-issued".utf8))

    func verifier(
        environment: AppAttestEnvironment = .production,
        root: Certificate = authority.root,
        cache: IntermediateCache = IntermediateCache()
    ) -> AppAttestVerifier {
        AppAttestVerifier(
            teamId: "ABCDE12345",
            bundleIds: ["com.example.gate"],
            environment: environment,
            trust: .synthetic(root: root),
            cache: cache
        )
    }

    func attest(
        _ options: AttestationOptions = .genuine,
        device: SimulatedDevice? = nil,
        at time: Date = now
    ) throws -> (SimulatedAppAttestKey, [UInt8]) {
        let key = try SimulatedAppAttestKey()
        let attestation = try (device ?? self.device).attest(
            key,
            clientDataHash: clientDataHash,
            now: time,
            options: options
        )
        return (key, attestation)
    }

    func expectRefusal(
        _ reason: AppAttestError.Reason,
        _ options: AttestationOptions = .genuine,
        keyId: [UInt8]? = nil,
        clientDataHash: [UInt8]? = nil,
        verifier: AppAttestVerifier? = nil,
        at time: Date = now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (key, attestation) = try attest(options)
        #expect(throws: AppAttestError(reason), sourceLocation: sourceLocation) {
            try (verifier ?? self.verifier()).verifyAttestation(
                keyId: keyId ?? key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash ?? self.clientDataHash,
                now: time
            )
        }
    }

    @Test func genuineAttestationIsAcceptedWithItsReceipt() throws {
        let (key, attestation) = try attest()
        let attested = try verifier().verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
        #expect(attested.publicKey == key.publicKey)
        #expect(attested.environment == .production)
        #expect(attested.receipt.kind == .attest)
        #expect(attested.receipt.environment == "production")
        #expect(attested.receipt.appId == "ABCDE12345.com.example.gate")
    }

    @Test func newerFormatIsAccepted() throws {
        let (key, attestation) = try attest(.genuine.with { $0.newerFormat = true })
        let object = try AttestationObject(attestation)
        #expect(object.authenticatorData.extensions?.count == 2)
        #expect(
            try Certificate(derRepresentation: object.certificates[0]).hasExtendedKeyUsage("1.2.840.113635.100.4.24")
        )
        _ = try verifier().verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
    }

    @Test func developmentDeviceIsAcceptedOnlyByADevelopmentVerifier() throws {
        let developer = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .development,
            authority: Self.authority
        )
        let (key, attestation) = try attest(device: developer)
        _ = try verifier(environment: .development).verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
        #expect(throws: AppAttestError(.aaguidMismatch)) {
            try verifier().verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func aChallengeWeDidNotIssue() throws {
        try expectRefusal(.nonceMismatch, clientDataHash: Digest.sha256(Array("another challenge".utf8)))
    }

    @Test func anotherAppsId() throws {
        try expectRefusal(.appIdMismatch, .genuine.with { $0.appId = "ABCDE12345.com.example.other" })
    }

    @Test func aKeyIdThatIsNotTheKeysHash() throws {
        try expectRefusal(.keyIdMismatch, keyId: Digest.sha256([1, 2, 3]))
    }

    @Test func aNonZeroCounter() throws {
        try expectRefusal(.counterNotZero, .genuine.with { $0.counter = 1 })
    }

    @Test func anExpiredLeaf() throws {
        try expectRefusal(.certExpired, .genuine.with { $0.leafValidity = -(10 * 86_400)...(-86_400) })
    }

    @Test func aLeafNotYetValid() throws {
        try expectRefusal(.certExpired, .genuine.with { $0.leafValidity = 3_600...(3 * 86_400) })
    }

    @Test func anExpiredIntermediate() throws {
        var validity = SimulatedAppleCA.Validity.around(Self.now)
        validity.intermediate = Self.now.addingTimeInterval(-400 * 86_400)...Self.now.addingTimeInterval(-86_400)
        let authority = try SimulatedAppleCA(now: Self.now, validity: validity)
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
        let (key, attestation) = try attest(device: device)
        #expect(throws: AppAttestError(.certExpired)) {
            try verifier(root: authority.root).verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func anExpiredRoot() throws {
        var validity = SimulatedAppleCA.Validity.around(Self.now)
        validity.root = Self.now.addingTimeInterval(-400 * 86_400)...Self.now.addingTimeInterval(-86_400)
        let authority = try SimulatedAppleCA(now: Self.now, validity: validity)
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
        let (key, attestation) = try attest(device: device)
        #expect(throws: AppAttestError(.certExpired)) {
            try verifier(root: authority.root).verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func aChainWithOnlyTheLeaf() throws {
        try expectRefusal(.chainLength, .genuine.with { $0.chain = .leafOnly })
    }

    @Test func aChainThatAlsoCarriesTheRoot() throws {
        try expectRefusal(.chainLength, .genuine.with { $0.chain = .leafIntermediateAndRoot })
    }

    @Test func anUntrustedIntermediate() throws {
        // A look-alike hierarchy with the same names: its intermediate is not signed by the pinned root.
        let impostor = try SimulatedAppleCA(now: Self.now)
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: impostor
        )
        let (key, attestation) = try attest(device: device)
        #expect(throws: AppAttestError(.chainUntrusted)) {
            try verifier().verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func theRealAppleRootDoesNotTrustTheSyntheticChain() throws {
        let (key, attestation) = try attest()
        let apple = AppAttestVerifier(teamId: "ABCDE12345", bundleIds: ["com.example.gate"], environment: .production)
        #expect(throws: AppAttestError(.chainUntrusted)) {
            try apple.verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func aNonECLeafKey() throws {
        try expectRefusal(.keyUnsupported, .genuine.with { $0.rsaLeafKey = true })
    }

    @Test func aMissingNonceExtension() throws {
        try expectRefusal(.nonceMissing, .genuine.with { $0.omitNonceExtension = true })
    }

    @Test func aLongFormDERLengthInTheNonceExtension() throws {
        let nonce = [UInt8](repeating: 0xab, count: 32)
        // SEQUENCE (long form 0x81 0x24) { [1] { OCTET STRING } }: valid BER, refused by the reader.
        let value: [UInt8] = [0x30, 0x81, 0x24, 0xa1, 0x22, 0x04, 0x20] + nonce
        try expectRefusal(.nonceMalformed, .genuine.with { $0.nonceExtensionValue = value })
    }

    @Test func aWrongAaguid() throws {
        try expectRefusal(.aaguidMismatch, .genuine.with { $0.aaguid = Array("appattestsandbox".utf8) })
    }

    @Test func aWrongCredentialId() throws {
        try expectRefusal(.credIdMismatch, .genuine.with { $0.credentialId = Digest.sha256([9]) })
    }

    @Test func aMissingReceipt() throws {
        try expectRefusal(.attStmtMalformed, .genuine.with { $0.omitReceipt = true })
    }

    @Test func malformedAndTruncatedCBOR() throws {
        let (key, attestation) = try attest()
        let inputs: [[UInt8]] = [
            [], [0xff], Array("not cbor".utf8), [0xa1, 0x63] + Array("fmt".utf8),
            Array(attestation.prefix(attestation.count / 2)), attestation + [0x00],
        ]
        for input in inputs {
            #expect(throws: AppAttestError(.attestationNotCBOR)) {
                try verifier().verifyAttestation(
                    keyId: key.keyId,
                    attestation: input,
                    clientDataHash: clientDataHash,
                    now: Self.now
                )
            }
        }
    }

    @Test func anotherFormat() throws {
        let (key, attestation) = try attest()
        var edited = attestation
        let fmt = Array("apple-appattest".utf8)
        let start = try #require(edited.firstRange(of: fmt)).lowerBound
        edited[start] = UInt8(ascii: "b")
        #expect(throws: AppAttestError(.fmtUnexpected)) {
            try verifier().verifyAttestation(
                keyId: key.keyId,
                attestation: edited,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func aCachedIntermediateStillNeedsAValidLeafSignatureAndWindows() throws {
        let cache = IntermediateCache()
        let (key, attestation) = try attest()
        _ = try verifier(cache: cache).verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
        // Same intermediate, now cached: a leaf from a look-alike intermediate with the same name fails,
        let impostor = try SimulatedAppleCA(now: Self.now)
        let forged = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: impostor
        )
        let (forgedKey, forgedAttestation) = try attest(device: forged)
        #expect(throws: AppAttestError(.chainUntrusted)) {
            try verifier(cache: cache).verifyAttestation(
                keyId: forgedKey.keyId,
                attestation: forgedAttestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
        // and an expired leaf under the cached intermediate is still refused.
        try expectRefusal(
            .certExpired,
            .genuine.with { $0.leafValidity = -(10 * 86_400)...(-86_400) },
            verifier: verifier(cache: cache)
        )
        // A second genuine attestation passes on the cached path.
        let (again, secondAttestation) = try attest()
        _ = try verifier(cache: cache).verifyAttestation(
            keyId: again.keyId,
            attestation: secondAttestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
    }
}

/// The receipt chain cache skips only the signature checks: windows are still checked at `now`.
@Suite struct ReceiptChainCacheTests {
    @Test func cachedReceiptChainsStillExpire() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let authority = try SimulatedAppleCA(now: now)
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
        let key = try SimulatedAppAttestKey()
        let attestation = try device.attest(key, clientDataHash: [1], now: now)
        let receiptBytes = try #require(CBORDecoder().decode(attestation)["attStmt"]?["receipt"]?.bytesValue)
        let cache = IntermediateCache()
        _ = try AppAttestReceipt(verifying: receiptBytes, root: authority.root, at: now, chainCache: cache)
        _ = try AppAttestReceipt(verifying: receiptBytes, root: authority.root, at: now, chainCache: cache)
        let later = authority.root.notAfter.addingTimeInterval(1)
        #expect(throws: AppAttestError(.receiptExpired)) {
            try AppAttestReceipt(verifying: receiptBytes, root: authority.root, at: later, chainCache: cache)
        }
        // Another root: the cache entry is keyed by the root too, so the chain is verified and refused.
        let other = try SimulatedAppleCA(now: now)
        #expect(throws: AppAttestError(.receiptUntrusted)) {
            try AppAttestReceipt(verifying: receiptBytes, root: other.root, at: now, chainCache: cache)
        }
    }
}
