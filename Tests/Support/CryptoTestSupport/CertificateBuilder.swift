package import Crypto
package import FoundationEssentials

/// Issues X.509 v3 certificates, for synthetic chains in tests, the simulated device and benches.
/// Production code verifies certificates; it never creates them, so this lives outside `Crypto`.
package struct CertificateBuilder: Sendable {
    /// One extension: its OID (dotted), criticality and the DER that goes into `extnValue`.
    package struct Extension: Sendable {
        package var oid: String
        package var critical: Bool
        package var value: [UInt8]

        package init(oid: String, critical: Bool = false, value: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.value = value
        }

        /// `basicConstraints` CA:TRUE (critical).
        package static let certificateAuthority = Extension(
            oid: "2.5.29.19",
            critical: true,
            value: [0x30, 0x03, 0x01, 0x01, 0xff]
        )
        /// `keyUsage` keyCertSign + cRLSign (critical).
        package static let caKeyUsage = Extension(oid: "2.5.29.15", critical: true, value: [0x03, 0x02, 0x01, 0x06])
    }

    package var subject: [(field: String, value: String)]
    package var serial: UInt64
    package var notBefore: Date
    package var notAfter: Date
    package var extensions: [Extension]

    package init(
        subject: [(field: String, value: String)],
        serial: UInt64,
        notBefore: Date,
        notAfter: Date,
        extensions: [Extension] = []
    ) {
        self.subject = subject
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.extensions = extensions
    }

    /// Issues the certificate for `subjectKey`, signed by `issuerKey` under `issuer`'s subject name
    /// (or self-signed when `issuer` is nil). P-384 issuers sign with SHA-384, others with SHA-256.
    /// - Throws: `crypto.internal` if OpenSSL fails.
    package func issue(
        subjectKey: PrivateKey,
        issuer: Certificate?,
        issuerKey: PrivateKey
    ) throws(CryptoError) -> Certificate {
        try issue(subjectPublicKeyDER: subjectKey.publicKeyDER, issuer: issuer, issuerKey: issuerKey)
    }

    /// Issues the certificate for the public key `subjectPublicKeyDER` (DER SubjectPublicKeyInfo, any
    /// algorithm: an RSA key makes a non-EC leaf), signed as `issue(subjectKey:issuer:issuerKey:)` does.
    /// - Throws: `crypto.internal` if OpenSSL fails.
    package func issue(
        subjectPublicKeyDER: [UInt8],
        issuer: Certificate?,
        issuerKey: PrivateKey
    ) throws(CryptoError) -> Certificate {
        try build(
            subjectKey: try OwnedKey(publicDER: subjectPublicKeyDER),
            issuer: try issuer.map { (certificate) throws(CryptoError) in try OwnedCertificate(certificate) },
            issuerKey: try OwnedKey(pem: issuerKey.pemRepresentation),
            sha384: issuerKey.kind == .p384
        )
    }
}
