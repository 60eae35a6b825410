/// Why a private key could not be loaded or used.
///
/// Equality uses only `reason`; `detail` (OpenSSL's error queue) is for logs and never holds key bytes.
package struct PrivateKeyError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug, safe for metrics.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// Not PEM, not a private key, or damaged.
        package static let keyMalformed = Reason("crypto.key_malformed")
        /// A well-formed key of the wrong type or size.
        package static let keyUnsupported = Reason("crypto.key_unsupported")
        /// OpenSSL refused to sign.
        package static let signFailed = Reason("crypto.sign_failed")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: PrivateKeyError, rhs: PrivateKeyError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
