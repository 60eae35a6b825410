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

    static func hierarchy(leafExtensions: [CertificateBuilder.Extension] = []) throws -> Hierarchy {
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
            extensions: [.certificateAuthority, .caKeyUsage]
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
        #expect(throws: CryptoError(.chainUntrusted)) {
            try verifier.verify(leaf: chain.leaf, intermediates: [chain.intermediate], at: Self.now)
        }
        let leaf = try Certificate(derRepresentation: chain.leaf.derRepresentation, keyDecoding: .deferred)
        #expect(throws: CryptoError(.chainUntrusted)) {
            try verifier.verify(leaf: leaf, verifiedIntermediate: chain.intermediate, at: Self.now)
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
