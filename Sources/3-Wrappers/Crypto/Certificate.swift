package import FoundationEssentials

/// An X.509 certificate parsed from DER (the whole input consumed), with the few fields verifiers read.
package struct Certificate: Sendable, Hashable {
    /// The exact DER it was parsed from.
    package let derRepresentation: [UInt8]
    /// Start of the validity window.
    package let notBefore: Date
    /// End of the validity window. The instant itself counts as expired, as OpenSSL's `X509_cmp_time`
    /// counts it, so that both chain checks agree to the second.
    package let notAfter: Date
    /// Whether OpenSSL decoded the subject key at parse time (see `KeyDecoding`).
    let keyDecoded: Bool
    let owner: X509Owner

    /// When the subject key is decoded.
    package enum KeyDecoding: Sendable {
        /// At parse time, by OpenSSL: the certificate can be anything, an issuer or a trust anchor included.
        case eager
        /// Never by OpenSSL's decoders, which cost OpenSSL 3.0 about a sixth of a P-384 verification per
        /// certificate. Such a certificate can only be a subject: checked with
        /// `CertificateChainVerifier.verify(leaf:verifiedIntermediate:at:)` and read (`publicKey()` builds
        /// the key from the SPKI fields). A full chain build refuses it.
        case deferred
    }

    /// Parses DER; bytes left after the certificate, and malformed extensions, are refused.
    /// - Throws: `crypto.der_malformed`.
    package init(derRepresentation der: [UInt8], keyDecoding: KeyDecoding = .eager) throws(CryptoError) {
        self = try Self.parse(der: der, decodingKey: keyDecoding == .eager)
    }

    /// Parses the first `BEGIN CERTIFICATE` block of a PEM text.
    /// - Throws: `crypto.der_malformed`.
    package init(pemRepresentation pem: String) throws(CryptoError) {
        try self.init(derRepresentation: try PEM.decode(pem, labels: ["CERTIFICATE"]))
    }

    init(owner: X509Owner, der: [UInt8], notBefore: Date, notAfter: Date, keyDecoded: Bool) {
        self.owner = owner
        self.keyDecoded = keyDecoded
        self.derRepresentation = der
        self.notBefore = notBefore
        self.notAfter = notAfter
    }

    /// The certificate as PEM.
    package var pemRepresentation: String { PEM.encode(derRepresentation, label: "CERTIFICATE") }

    /// SHA-256 of the DER (what `openssl x509 -fingerprint -sha256` prints).
    package var sha256Fingerprint: [UInt8] { Digest.sha256(derRepresentation) }

    /// Whether `instant` lies inside `notBefore..<notAfter`.
    package func isValid(at instant: Date) -> Bool { notBefore <= instant && instant < notAfter }

    /// The subject in OpenSSL's one-line form, e.g. `/CN=Apple App Attestation Root CA/O=Apple Inc./ST=California`.
    package var subject: String { subjectLine() }

    /// The subject public key, built from the SPKI fields; only ECDSA keys on P-256/P-384 given as
    /// uncompressed points on a named curve are accepted, and the point must lie on the curve.
    /// - Throws: `crypto.key_unsupported` for any other key.
    package func publicKey() throws(CryptoError) -> ECPublicKey { try extractPublicKey() }

    /// The contents of the `extnValue` OCTET STRING of the extension `oid` (dotted form).
    /// - Returns: nil when the extension is absent or present more than once.
    package func extensionValue(oid: String) -> [UInt8]? { extensionBytes(oid: oid) }

    /// Whether the extended key usage extension lists `oid` (dotted form).
    package func hasExtendedKeyUsage(_ oid: String) -> Bool { extendedKeyUsages().contains(oid) }

    package static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }
    package func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
}
