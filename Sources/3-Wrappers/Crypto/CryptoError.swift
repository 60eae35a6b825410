/// Why a cryptographic operation refused its input. Equality uses only `reason`; `detail` (OpenSSL's
/// drained error queue, for example) is for logs only.
package struct CryptoError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug, safe for logs and metrics.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// DER (or PEM) that does not parse, or bytes left over after the structure.
        package static let derMalformed = Reason("crypto.der_malformed")
        /// A key that is not ECDSA on the expected curve.
        package static let keyUnsupported = Reason("crypto.key_unsupported")
        /// A signature that does not verify.
        package static let signatureInvalid = Reason("crypto.signature_invalid")
        /// A chain that does not lead to the pinned root.
        package static let chainUntrusted = Reason("crypto.chain_untrusted")
        /// A certificate in the chain outside its validity window at the verification time.
        package static let certificateExpired = Reason("crypto.cert_expired")
        /// A PKCS#7 / CMS structure that is not signed data or whose signature fails.
        package static let signedDataInvalid = Reason("crypto.signed_data_invalid")
        /// OpenSSL failed where it should not have (allocation, key generation).
        package static let internalFailure = Reason("crypto.internal")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
