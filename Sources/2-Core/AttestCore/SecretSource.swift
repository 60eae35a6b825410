/// Where a secret's bytes come from: Secrets Manager by ARN in Lambda, a file for local runs.
///
/// Contract:
/// - `readSecret()` returns the secret's *current* value; callers cache what they parse from it and
///   decide themselves when to read again (after a key was revoked, not on every request).
/// - The returned buffer belongs to the caller, who wipes it (`Zeroization.wipe`) once parsed.
/// - Failures throw `SecretSourceError` with a bounded reason; `detail` never contains secret bytes.
/// - Implementations never log the secret.
package protocol SecretSource: Sendable {
    /// Reads the secret.
    /// - Throws: `SecretSourceError` when the secret cannot be read now.
    func readSecret() async throws(SecretSourceError) -> [UInt8]
}

/// Why a secret could not be read.
package struct SecretSourceError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The secret does not exist (missing file, unknown ARN).
        package static let notFound = Reason("secret.not_found")
        /// The store could not be reached or refused us (I/O error, Secrets Manager error).
        package static let unavailable = Reason("secret.unavailable")
        /// The secret is larger than any secret we use.
        package static let tooLarge = Reason("secret.too_large")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: SecretSourceError, rhs: SecretSourceError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
