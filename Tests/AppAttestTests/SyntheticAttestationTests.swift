import AttestCore
import CBOR
import FoundationEssentials
import SimulatedDevice
import Testing

@testable import AppAttest
@testable import Crypto

/// A synthetic chain with Apple's structure: the genuine case passes, and each test breaks exactly one
/// condition and requires the matching refusal. Signatures are really verified, nonces recomputed.
@Suite struct SyntheticAttestationTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let authority = try! SimulatedAppleCA(now: now)

    let device = Self.device(of: authority)
    let clientDataHash = Digest.sha256(Array("challenge-we-issued".utf8))

    /// A production device of this suite's app under `authority`.
    static func device(of authority: SimulatedAppleCA) -> SimulatedDevice {
        SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
    }

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

    /// The two ways a chain is checked: a first-seen intermediate goes through OpenSSL's full chain build
    /// (leaf parsed with its key); a cached one leaves one signature check on a leaf parsed without its
    /// key (`CertificateChainVerifier.verify(leaf:verifiedIntermediate:)`). Every refusal holds on both.
    enum ChainPath: CaseIterable {
        case firstSeenIntermediate
        case cachedIntermediate
    }

    /// A cache holding the intermediate of `device` (this suite's own by default), verified at `time`.
    func warmCache(
        device: SimulatedDevice? = nil,
        root: Certificate = authority.root,
        at time: Date = now
    ) throws
        -> IntermediateCache
    {
        let cache = IntermediateCache()
        let (key, attestation) = try attest(device: device, at: time)
        _ = try verifier(root: root, cache: cache).verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: time
        )
        return cache
    }

    func cache(for path: ChainPath) throws -> IntermediateCache {
        path == .cachedIntermediate ? try warmCache() : IntermediateCache()
    }

    /// Registration (Apple's steps, then the receipt) refuses `options` with `reason`, on both chain paths.
    func expectRefusal(
        _ reason: AppAttestError.Reason,
        _ options: AttestationOptions = .genuine,
        keyId: [UInt8]? = nil,
        clientDataHash: [UInt8]? = nil,
        at time: Date = now,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for path in ChainPath.allCases {
            let verifier = verifier(cache: try cache(for: path))
            let (key, attestation) = try attest(options)
            #expect(throws: AppAttestError(reason), "\(path)", sourceLocation: sourceLocation) {
                try verifier.verifyRegistration(
                    keyId: keyId ?? key.keyId,
                    attestation: attestation,
                    clientDataHash: clientDataHash ?? self.clientDataHash,
                    now: time
                )
            }
        }
    }

    /// Apple's nine steps pass and our check refuses the ATTEST receipt with `reason`, on both chain paths:
    /// `verifyReceipt` throws it, and `verifyRegistration` registers the key and reports it (docs/appattest.md).
    func expectReceiptRefusal(
        _ reason: AppAttestError.Reason,
        _ options: AttestationOptions,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for path in ChainPath.allCases {
            let verifier = verifier(cache: try cache(for: path))
            let (key, attestation) = try attest(options)
            let registration = try verifier.verifyRegistration(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
            #expect(registration.receipt == nil, "\(path)", sourceLocation: sourceLocation)
            #expect(registration.receiptRefusal == AppAttestError(reason), "\(path)", sourceLocation: sourceLocation)
            #expect(registration.key.publicKey == key.publicKey, sourceLocation: sourceLocation)
            #expect(registration.receiptBytes == registration.key.unverifiedReceipt, sourceLocation: sourceLocation)
            #expect(throws: AppAttestError(reason), "\(path)", sourceLocation: sourceLocation) {
                try verifier.verifyReceipt(of: registration.key, clientDataHash: self.clientDataHash, now: Self.now)
            }
        }
    }

    @Test(arguments: ChainPath.allCases) func genuineAttestationIsAcceptedWithItsReceipt(path: ChainPath) throws {
        let (key, attestation) = try attest()
        let registration = try verifier(cache: try cache(for: path)).verifyRegistration(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
        #expect(registration.key.publicKey == key.publicKey)
        #expect(registration.key.environment == .production)
        let receipt = try #require(registration.receipt)
        #expect(registration.receiptRefusal == nil)
        #expect(receipt.bytes == registration.key.unverifiedReceipt)
        #expect(receipt.kind == .attest)
        #expect(receipt.environment == "production")
        #expect(receipt.appId == "ABCDE12345.com.example.gate")
    }

    @Test func verifyAttestationIsApplesStepsAndLeavesTheReceiptToVerifyReceipt() throws {
        let (key, attestation) = try attest(.genuine.with { $0.receipt.appId = "ABCDE12345.com.example.other" })
        let verifier = verifier()
        let attested = try verifier.verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: Self.now
        )
        #expect(!attested.unverifiedReceipt.isEmpty)
        #expect(throws: AppAttestError(.receiptAppIdMismatch)) {
            try verifier.verifyReceipt(of: attested, clientDataHash: clientDataHash, now: Self.now)
        }
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

    enum CACertificate: CaseIterable { case intermediate, root }

    @Test(arguments: CACertificate.allCases) func anExpiredCACertificate(_ expired: CACertificate) throws {
        var validity = SimulatedAppleCA.Validity.around(Self.now)
        let past = Self.now.addingTimeInterval(-400 * 86_400)...Self.now.addingTimeInterval(-86_400)
        switch expired {
        case .intermediate: validity.intermediate = past
        case .root: validity.root = past
        }
        let authority = try SimulatedAppleCA(now: Self.now, validity: validity)
        let (key, attestation) = try attest(device: Self.device(of: authority))
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
        let device = Self.device(of: impostor)
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

    @Test(arguments: ChainPath.allCases) func aLeafSignedByAnotherKeyBesideTheGenuineIntermediate(
        path: ChainPath
    ) throws {
        // A look-alike hierarchy with the same names signs the leaf; x5c carries the genuine intermediate.
        let impostor = try SimulatedAppleCA(now: Self.now)
        let forged = Self.device(of: impostor)
        let (key, attestation) = try attest(device: forged)
        guard case .map(var entries) = try CBORDecoder().decode(attestation),
            let statementIndex = entries.firstIndex(where: { $0.key == .text("attStmt") }),
            case .map(var statement) = entries[statementIndex].value,
            let x5cIndex = statement.firstIndex(where: { $0.key == .text("x5c") }),
            case .array(let x5c) = statement[x5cIndex].value
        else { throw AppAttestError(.attStmtMalformed) }
        statement[x5cIndex] = CBORMapEntry(
            .text("x5c"),
            .array([x5c[0], .bytes(Self.authority.intermediate.derRepresentation)])
        )
        entries[statementIndex] = CBORMapEntry(.text("attStmt"), .map(statement))
        let spliced = CBOREncoder.encode(.map(entries))
        #expect(throws: AppAttestError(.chainUntrusted)) {
            try verifier(cache: try cache(for: path)).verifyAttestation(
                keyId: key.keyId,
                attestation: spliced,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    @Test func theCachedPathIsTakenOnceTheIntermediateIsVerified() throws {
        let warm = try warmCache()
        let (key, attestation) = try attest()
        let object = try AttestationObject(attestation)
        for (cache, cached) in [(IntermediateCache(), false), (warm, true)] {
            let evidence = try AttestationEvidence(
                keyId: key.keyId,
                clientDataHash: clientDataHash,
                object: object,
                now: Self.now,
                root: Self.authority.root,
                cache: cache
            )
            #expect(evidence.intermediateVerified == cached)
            #expect(evidence.leaf.keyDecoded == !cached)
        }
    }

    @Test func anUnknownCriticalExtensionOnTheLeaf() throws {
        try expectRefusal(.chainUntrusted, .genuine.with { $0.unknownCriticalExtension = true })
    }

    @Test func aCachedIntermediateThatHasSinceExpired() throws {
        var validity = SimulatedAppleCA.Validity.around(Self.now)
        validity.intermediate = Self.now.addingTimeInterval(-400 * 86_400)...Self.now.addingTimeInterval(-3_600)
        let authority = try SimulatedAppleCA(now: Self.now, validity: validity)
        let device = Self.device(of: authority)
        // Verified (and cached) while it was valid; a later leaf under it is refused for the window.
        let earlier = Self.now.addingTimeInterval(-6 * 3_600)
        let cache = try warmCache(device: device, root: authority.root, at: earlier)
        let (key, attestation) = try attest(device: device)
        #expect(throws: AppAttestError(.certExpired)) {
            try verifier(root: authority.root, cache: cache).verifyAttestation(
                keyId: key.keyId,
                attestation: attestation,
                clientDataHash: clientDataHash,
                now: Self.now
            )
        }
    }

    // MARK: The ATTEST receipt (verifyReceipt; verifyRegistration registers the key and reports the refusal)

    @Test func aReceiptForAnotherApp() throws {
        try expectReceiptRefusal(
            .receiptAppIdMismatch,
            .genuine.with { $0.receipt.appId = "ABCDE12345.com.example.other" }
        )
    }

    @Test func aReceiptForAnotherKey() throws {
        try expectReceiptRefusal(.receiptKeyMismatch, .genuine.with { $0.receipt.otherKeyCertificate = true })
    }

    @Test func aReceiptForAnotherAttestation() throws {
        try expectReceiptRefusal(
            .receiptClientHashMismatch,
            .genuine.with { $0.receipt.clientDataHash = Digest.sha256([7]) }
        )
    }

    @Test func aRefreshedReceiptInPlaceOfAnAttestReceipt() throws {
        try expectReceiptRefusal(.receiptTypeUnexpected, .genuine.with { $0.receipt.kind = "RECEIPT" })
    }

    @Test func aSandboxReceiptForAProductionKey() throws {
        try expectReceiptRefusal(.receiptEnvironmentMismatch, .genuine.with { $0.receipt.environment = "sandbox" })
    }

    @Test func aReceiptChangedAfterSigning() throws {
        try expectReceiptRefusal(.receiptSignatureInvalid, .genuine.with { $0.receipt.tamperAfterSigning = true })
    }

    /// Some early iOS 14 receipts carry signed attributes but a signature over the content itself: OpenSSL
    /// refuses them, and the genuine key is registered with its receipt unverified.
    @Test func aReceiptSignedOverTheContentInsteadOfItsSignedAttributes() throws {
        try expectReceiptRefusal(.receiptSignatureInvalid, .genuine.with { $0.receipt.signatureOverContent = true })
    }

    @Test func aReceiptSignedUnderAnotherRoot() throws {
        let other = try SimulatedAppleCA(now: Self.now)
        try expectReceiptRefusal(.receiptUntrusted, .genuine.with { $0.receipt.signer = other })
    }
}

/// The receipt chain cache skips only the signature checks: windows are still checked at `now`.
@Suite struct ReceiptChainCacheTests {
    @Test func cachedReceiptChainsStillExpire() throws {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let authority = try SimulatedAppleCA(now: now)
        let device = SyntheticAttestationTests.device(of: authority)
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
