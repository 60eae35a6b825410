/// Why no Google access token could be obtained. Every case makes a Play check `unavailable` and costs
/// the device no budget.
package struct GoogleAuthError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The service-account secret could not be read.
        package static let secretUnavailable = Reason("play.auth.secret_unavailable")
        /// The secret is not a usable service-account JSON key.
        package static let secretMalformed = Reason("play.auth.secret_malformed")
        /// The key was dropped recently (revoked, unreadable); the secret is not read again yet.
        package static let keyBackoff = Reason("play.auth.key_backoff")
        /// The token endpoint refused our assertion (400/401/403): the key is treated as revoked.
        package static let keyRejected = Reason("play.auth.key_rejected")
        /// The token endpoint failed (5xx, 429, timeout, connection).
        package static let endpointUnavailable = Reason("play.auth.endpoint_unavailable")
        /// A 200 whose body is not a usable token response.
        package static let responseMalformed = Reason("play.auth.response_malformed")
        /// Signing the assertion failed.
        package static let signingFailed = Reason("play.auth.signing_failed")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: GoogleAuthError, rhs: GoogleAuthError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
