import CryptoTestSupport
import FoundationEssentials
import Testing

@testable import Crypto

/// Certificates parsed without OpenSSL decoding their key (`KeyDecoding.deferred`), keys built from
/// points, and the one-link check under a verified intermediate that both rely on.
@Suite struct DeferredKeyCertificateTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let window = now.addingTimeInterval(-86_400)...now.addingTimeInterval(86_400)

    struct Hierarchy {
        let root: Certificate
        let intermediate: Certificate
        let intermediateKey: PrivateKey
        let leafKey: PrivateKey
        let leaf: Certificate
    }

    static func hierarchy(
        leafExtensions: [CertificateBuilder.Extension] = [],
        intermediateExtensions: [CertificateBuilder.Extension] = []
    ) throws -> Hierarchy {
        let rootKey = try PrivateKey(generating: .p384)
        let root = try CertificateBuilder(
            subject: [("CN", "Test Root")],
            serial: 1,
            notBefore: window.lowerBound,
            notAfter: window.upperBound,
            extensions: [.certificateAuthority, .caKeyUsage]
        ).issue(subjectKey: rootKey, issuer: nil, issuerKey: rootKey)
        let intermediateKey = try PrivateKey(generating: .p384)
        let intermediate = try CertificateBuilder(
            subject: [("CN", "Test Intermediate")],
            serial: 2,
            notBefore: window.lowerBound,
            notAfter: window.upperBound,
            extensions: [.certificateAuthority, .caKeyUsage] + intermediateExtensions
        ).issue(subjectKey: intermediateKey, issuer: root, issuerKey: rootKey)
        let leafKey = try PrivateKey(generating: .p256)
        let leaf = try CertificateBuilder(
            subject: [("CN", "Test Leaf")],
            serial: 3,
            notBefore: window.lowerBound,
            notAfter: window.upperBound,
            extensions: leafExtensions
        ).issue(subjectKey: leafKey, issuer: intermediate, issuerKey: intermediateKey)
        return Hierarchy(
            root: root,
            intermediate: intermediate,
            intermediateKey: intermediateKey,
            leafKey: leafKey,
            leaf: leaf
        )
    }

    @Test func aDeferredParseReadsTheSameCertificate() throws {
        let chain = try Self.hierarchy()
        let deferred = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        #expect(!deferred.keyDecoded)
        #expect(deferred == chain.leaf)
        #expect(deferred.subject == chain.leaf.subject)
        #expect(deferred.notBefore == chain.leaf.notBefore && deferred.notAfter == chain.leaf.notAfter)
        #expect(try deferred.publicKey() == chain.leaf.publicKey())
        #expect(try deferred.publicKey().derRepresentation == chain.leafKey.publicKeyDER)
        #expect(try chain.intermediate.publicKey().curve == .p384)
    }

    @Test func aDeferredLeafVerifiesUnderItsVerifiedIntermediateOnly() throws {
        let chain = try Self.hierarchy()
        let verifier = CertificateChainVerifier(root: chain.root)
        let leaf = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        try verifier.verify(leaf: leaf, verifiedIntermediate: chain.intermediate, at: Self.now)

        // Same names, another key: the signature check refuses it.
        let other = try Self.hierarchy()
        let forged = try Certificate(derRepresentation: other.leaf.derRepresentation, keyDecoding: .deferred)
        #expect(throws: CryptoError(.chainUntrusted)) {
            try verifier.verify(leaf: forged, verifiedIntermediate: chain.intermediate, at: Self.now)
        }
        // Outside the window.
        #expect(throws: CryptoError(.certificateExpired)) {
            try verifier.verify(
                leaf: leaf,
                verifiedIntermediate: chain.intermediate,
                at: Self.window.upperBound.addingTimeInterval(1)
            )
        }
        // An issuer whose name is not the leaf's issuer.
        #expect(throws: CryptoError(.chainUntrusted)) {
            try verifier.verify(leaf: leaf, verifiedIntermediate: chain.root, at: Self.now)
        }
    }

    @Test func anUnknownCriticalExtensionIsRefusedOnBothPaths() throws {
        let critical = CertificateBuilder.Extension(oid: "1.3.6.1.4.1.55555.1", critical: true, value: [0x05, 0x00])
        let chain = try Self.hierarchy(leafExtensions: [critical])
        let verifier = CertificateChainVerifier(root: chain.root)
        let full = #expect(throws: CryptoError.self) {
            try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: Self.now)
        }
        #expect(full?.reason == .chainUntrusted && full?.detail.contains("unhandled critical extension") == true)
        let leaf = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        let oneLink = #expect(throws: CryptoError.self) {
            try verifier.verify(leaf: leaf, verifiedIntermediate: chain.intermediate, at: Self.now)
        }
        #expect(oneLink?.reason == .chainUntrusted && oneLink?.detail.contains("critical") == true)
    }

    /// Refuses `der` on both paths: the full chain build (parsed with its key) and the one-link check
    /// under the verified intermediate (parsed without).
    func expectBothPathsRefuse(
        _ der: [UInt8],
        _ chain: Hierarchy,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let verifier = CertificateChainVerifier(root: chain.root)
        let eager = try Certificate(derRepresentation: der)
        #expect(throws: CryptoError(.chainUntrusted), "full", sourceLocation: sourceLocation) {
            try verifier.verify(leaf: eager, intermediates: [chain.intermediate], at: Self.now)
        }
        let deferred = try Certificate(derRepresentation: der, keyDecoding: .deferred)
        #expect(throws: CryptoError(.chainUntrusted), "one link", sourceLocation: sourceLocation) {
            try verifier.verify(leaf: deferred, verifiedIntermediate: chain.intermediate, at: Self.now)
        }
    }

    /// Replaces the first (or `last`) occurrence of `pattern` in `der`.
    func replacing(
        _ pattern: [UInt8],
        with replacement: [UInt8],
        in der: [UInt8],
        last: Bool = false
    ) throws
        -> [UInt8]
    {
        let ranges = der.ranges(of: pattern)
        let range = try #require(last ? ranges.last : ranges.first)
        var edited = der
        edited.replaceSubrange(range, with: replacement)
        return edited
    }

    static let ecdsaSHA384: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03]
    static let ecdsaSHA256: [UInt8] = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]

    @Test func aChangedToBeSignedPartIsRefusedOnBothPaths() throws {
        let chain = try Self.hierarchy()
        let der = try replacing(
            Array("Test Leaf".utf8),
            with: Array("Test Leag".utf8),
            in: chain.leaf.derRepresentation
        )
        try expectBothPathsRefuse(der, chain)
    }

    /// DER length octets (short form, or long form in one or two bytes).
    static func length(_ count: Int) -> [UInt8] {
        count < 0x80
            ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
    }

    /// The certificate's three sections, as received.
    static func sections(_ der: [UInt8]) throws -> (tbs: [UInt8], algorithm: [UInt8], signature: [UInt8]) {
        var outer = DERReader(der[...], allowLongForm: true)
        let body = outer.next(tag: 0x30)
        var reader = DERReader(try #require(body), allowLongForm: true)
        let elements = [reader.next(), reader.next(), reader.next()].compactMap { $0 }
        try #require(elements.count == 3 && reader.isAtEnd)
        return (Array(elements[0].encoded), Array(elements[1].encoded), Array(elements[2].encoded))
    }

    /// `Certificate ::= SEQUENCE { tbs, algorithm, BIT STRING { unused bits, signature } }`.
    static func assemble(tbs: [UInt8], algorithm: [UInt8], unusedBits: UInt8 = 0, signature: [UInt8]) -> [UInt8] {
        let bits = [0x03] + length(signature.count + 1) + [unusedBits] + signature
        let body = tbs + algorithm + bits
        return [0x30] + length(body.count) + body
    }

    @Test func aValidSignatureUnderAnOuterAlgorithmThatDiffersFromTheInnerOneIsRefusedOnBothPaths() throws {
        let chain = try Self.hierarchy()  // the P-384 intermediate signs with ecdsa-with-SHA384
        let (tbs, algorithm, _) = try Self.sections(chain.leaf.derRepresentation)
        #expect(algorithm == [0x30, 0x0a] + Self.ecdsaSHA384)
        // Re-signed with SHA-256 under an outer ecdsa-with-SHA256: the signature is valid for the outer
        // algorithm; only the inner algorithm (still SHA-384) differs.
        let der = Self.assemble(
            tbs: tbs,
            algorithm: [0x30, 0x0a] + Self.ecdsaSHA256,
            signature: try chain.intermediateKey.signatureSHA256(for: tbs)
        )
        try expectBothPathsRefuse(der, chain)
        // The control: both algorithms SHA-256 and re-signed so is accepted on both paths.
        let inner = try replacing(Self.ecdsaSHA384, with: Self.ecdsaSHA256, in: tbs)
        let consistent = Self.assemble(
            tbs: inner,
            algorithm: [0x30, 0x0a] + Self.ecdsaSHA256,
            signature: try chain.intermediateKey.signatureSHA256(for: inner)
        )
        let verifier = CertificateChainVerifier(root: chain.root)
        try verifier.verify(
            leaf: try Certificate(derRepresentation: consistent),
            intermediates: [chain.intermediate],
            at: Self.now
        )
        try verifier.verify(
            leaf: try Certificate(derRepresentation: consistent, keyDecoding: .deferred),
            verifiedIntermediate: chain.intermediate,
            at: Self.now
        )
    }

    @Test func bothAlgorithmsSwappedAfterSigningAreRefusedOnBothPaths() throws {
        let chain = try Self.hierarchy()
        let inner = try replacing(Self.ecdsaSHA384, with: Self.ecdsaSHA256, in: chain.leaf.derRepresentation)
        let both = try replacing(Self.ecdsaSHA384, with: Self.ecdsaSHA256, in: inner)
        try expectBothPathsRefuse(both, chain)
    }

    @Test func unusedBitsInTheSignatureAreRefusedOnBothPaths() throws {
        // OpenSSL clears the unused bits it is told about; with an even last byte that changes nothing,
        // so only the explicit unused-bits check refuses.
        var chain = try Self.hierarchy()
        var sections = try Self.sections(chain.leaf.derRepresentation)
        while sections.signature.last.map({ $0 & 1 }) != 0 {
            chain = try Self.hierarchy()
            sections = try Self.sections(chain.leaf.derRepresentation)
        }
        let signature = Array(sections.signature.dropFirst(sections.signature[1] < 0x80 ? 3 : 4))
        let der = Self.assemble(tbs: sections.tbs, algorithm: sections.algorithm, unusedBits: 1, signature: signature)
        #expect(
            Self.assemble(tbs: sections.tbs, algorithm: sections.algorithm, signature: signature)
                == chain.leaf.derRepresentation
        )
        try expectBothPathsRefuse(der, chain)
    }

    @Test func anIssuerWithNameConstraintsNeverAnchorsTheOneLinkCheck() throws {
        // nameConstraints { permittedSubtrees { dNSName example.com } }, critical
        let constraints = CertificateBuilder.Extension(
            oid: "2.5.29.30",
            critical: true,
            value: [0x30, 0x11, 0xa0, 0x0f, 0x30, 0x0d, 0x82, 0x0b] + Array("example.com".utf8)
        )
        let chain = try Self.hierarchy(intermediateExtensions: [constraints])
        let verifier = CertificateChainVerifier(root: chain.root)
        try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: Self.now)
        #expect(!CertificateChainVerifier.isOneLinkAnchor(chain.intermediate))
        #expect(CertificateChainVerifier.isOneLinkAnchor(try Self.hierarchy().intermediate))
        let leaf = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        #expect(throws: CryptoError(.chainUntrusted)) {
            try verifier.verify(leaf: leaf, verifiedIntermediate: chain.intermediate, at: Self.now)
        }
    }

    @Test func validityEndsAtNotAfterOnBothPaths() throws {
        let chain = try Self.hierarchy()
        let verifier = CertificateChainVerifier(root: chain.root)
        let end = chain.leaf.notAfter
        #expect(chain.leaf.isValid(at: end.addingTimeInterval(-1)) && !chain.leaf.isValid(at: end))
        try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: end.addingTimeInterval(-1))
        #expect(throws: CryptoError(.certificateExpired)) {
            try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: end)
        }
        #expect(throws: CryptoError(.certificateExpired)) {
            try verifier.verify(leaf: chain.leaf, verifiedIntermediate: chain.intermediate, at: end)
        }
    }

    @Test func validityTimesMustBeInRFC5280Form() throws {
        let chain = try Self.hierarchy()
        // The first UTCTime (notBefore), `YYMMDDHHMMSSZ`: its `Z` becomes a digit.
        var der = chain.leaf.derRepresentation
        let start = try #require(der.firstRange(of: [0x17, 0x0d])).lowerBound
        #expect(der[start + 14] == UInt8(ascii: "Z"))
        der[start + 14] = UInt8(ascii: "0")
        for decoding in [Certificate.KeyDecoding.eager, .deferred] {
            #expect(throws: CryptoError(.derMalformed)) {
                try Certificate(derRepresentation: der, keyDecoding: decoding)
            }
        }
    }

    @Test func aFullChainBuildRefusesADeferredCertificate() throws {
        let chain = try Self.hierarchy()
        let leaf = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        let verifier = CertificateChainVerifier(root: chain.root)
        try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: Self.now)
        #expect(throws: CryptoError(.internalFailure)) {
            try verifier.verify(leaf: leaf, intermediates: [chain.intermediate], at: Self.now)
        }
    }

    @Test func trailingBytesAndGarbageAreRefusedDeferredToo() throws {
        let chain = try Self.hierarchy()
        for input in [
            chain.leaf.derRepresentation + [0], Array(chain.leaf.derRepresentation.dropLast()), [0x30, 0x00],
        ] {
            #expect(throws: CryptoError(.derMalformed)) {
                try Certificate(derRepresentation: input, keyDecoding: .deferred)
            }
        }
    }

    @Test func pointsMustLieOnTheCurve() throws {
        let key = try PrivateKey(generating: .p256)
        let good = try ECPublicKey(derRepresentation: key.publicKeyDER)
        #expect(try ECPublicKey(p256X962: good.x962Representation) == good)
        var bad = good.x962Representation
        bad[64] ^= 0x01
        #expect(throws: CryptoError(.keyUnsupported)) { try ECPublicKey(p256X962: bad) }
        #expect(throws: CryptoError(.keyUnsupported)) {
            try ECPublicKey(derRepresentation: ECPublicKey.p256SPKIPrefix + bad)
        }
    }

    @Test func aKeyMadeFromAPointVerifiesWhatItsPrivateHalfSigned() throws {
        for kind in [PrivateKey.Kind.p256, .p384] {
            let key = try PrivateKey(generating: kind)
            let message = Array("signed".utf8)
            let signature = try key.signatureSHA256(for: message)
            // The SPKI fast path (a point, OpenSSL's key made on first use).
            let publicKey = try ECPublicKey(derRepresentation: key.publicKeyDER)
            #expect(publicKey.isValidSHA256Signature(signature, for: message))
            #expect(!publicKey.isValidSHA256Signature(signature, for: message + [0]))
        }
    }
}
