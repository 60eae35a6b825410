package import Crypto
internal import CryptoTestSupport
package import FoundationEssentials

/// A synthetic stand-in for Apple's two certificate hierarchies, with Apple's structure:
///
/// - attestation: root (P-384, self-signed) → intermediate (P-384) → per-key leaf (P-256, nonce extension);
/// - receipts: the same root → receipt CA (P-384) → receipt signer (P-256) signing PKCS#7 receipts.
///
/// Its root PEM is what `APP_ATTEST_TRUST_ROOT` points at in development and tests, where it replaces
/// both Apple roots (`AppAttestTrust.synthetic(root:)`).
package struct SimulatedAppleCA: Sendable {
    package let root: Certificate
    let rootKey: PrivateKey
    package let intermediate: Certificate
    let intermediateKey: PrivateKey
    package let receiptCA: Certificate
    let receiptCAKey: PrivateKey
    package let receiptSigner: Certificate
    let receiptSignerKey: PrivateKey

    /// Validity windows of the CA certificates (tests break one at a time).
    package struct Validity: Sendable {
        package var root: ClosedRange<Date>
        package var intermediate: ClosedRange<Date>

        /// Twenty years around `now` for both.
        package static func around(_ now: Date) -> Validity {
            let span: TimeInterval = 20 * 365 * 86_400
            let window = now.addingTimeInterval(-86_400)...now.addingTimeInterval(span)
            return Validity(root: window, intermediate: window)
        }
    }

    /// Creates fresh keys and certificates.
    /// - Parameters:
    ///   - now: the time the validity windows are built around.
    ///   - validity: override to make a CA certificate expired or not yet valid.
    ///   - name: distinguishes several synthetic CAs in one test (an untrusted look-alike).
    /// - Throws: `CryptoError` if OpenSSL fails.
    package init(now: Date, validity: Validity? = nil, name: String = "Synthetic") throws(CryptoError) {
        let validity = validity ?? .around(now)
        rootKey = try PrivateKey(generating: .p384)
        root = try CertificateBuilder(
            subject: [("CN", "\(name) App Attestation Root CA"), ("O", "AttestGate Test"), ("ST", "California")],
            serial: 1,
            notBefore: validity.root.lowerBound,
            notAfter: validity.root.upperBound,
            extensions: [.certificateAuthority, .caKeyUsage]
        ).issue(subjectKey: rootKey, issuer: nil, issuerKey: rootKey)

        intermediateKey = try PrivateKey(generating: .p384)
        intermediate = try CertificateBuilder(
            subject: [("CN", "\(name) App Attestation CA 1"), ("O", "AttestGate Test"), ("ST", "California")],
            serial: 2,
            notBefore: validity.intermediate.lowerBound,
            notAfter: validity.intermediate.upperBound,
            extensions: [.certificateAuthority, .caKeyUsage]
        ).issue(subjectKey: intermediateKey, issuer: root, issuerKey: rootKey)

        receiptCAKey = try PrivateKey(generating: .p384)
        receiptCA = try CertificateBuilder(
            subject: [("CN", "\(name) Application Integration CA"), ("O", "AttestGate Test"), ("C", "US")],
            serial: 3,
            notBefore: validity.root.lowerBound,
            notAfter: validity.root.upperBound,
            extensions: [.certificateAuthority, .caKeyUsage]
        ).issue(subjectKey: receiptCAKey, issuer: root, issuerKey: rootKey)

        receiptSignerKey = try PrivateKey(generating: .p256)
        receiptSigner = try CertificateBuilder(
            subject: [("CN", "\(name) Attestation Fraud Receipt Signing"), ("O", "AttestGate Test"), ("C", "US")],
            serial: 4,
            notBefore: validity.root.lowerBound,
            notAfter: validity.root.upperBound
        ).issue(subjectKey: receiptSignerKey, issuer: receiptCA, issuerKey: receiptCAKey)
    }

    /// The root as PEM: write it to a file and point `APP_ATTEST_TRUST_ROOT` (or `--trust-root`) at it.
    package var rootPEM: String { root.pemRepresentation }
}
