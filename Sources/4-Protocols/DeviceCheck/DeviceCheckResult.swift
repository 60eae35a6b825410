package import AttestCore

/// The outcome of one DeviceCheck validation and, unless it is `genuine`, the reason slug for logs.
///
/// DeviceCheck proves a genuine Apple device but cannot bind to the device ID, so the merge consults it
/// only when no binding provider could answer (seeds/000 §8).
package struct DeviceCheckResult: Sendable, Hashable, CustomStringConvertible {
    package let outcome: AttestationOutcome
    package let reason: Reason?

    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The token is not base64 or is implausibly long; Apple was not called.
        package static let tokenMalformed = Reason("devicecheck.token_malformed")
        /// Apple answered 400: the device token is invalid.
        package static let tokenRejected = Reason("devicecheck.token_rejected")
        /// Apple refused our JWT (401/403): our key or team is at fault.
        package static let unauthorized = Reason("devicecheck.unauthorized")
        /// 429, 5xx, timeout or connection failure.
        package static let serviceUnavailable = Reason("devicecheck.unavailable")
        /// Signing our JWT failed.
        package static let signingFailed = Reason("devicecheck.signing_failed")
        /// The device ID's daily DeviceCheck budget is spent; Apple was not called.
        package static let budgetExhausted = Reason("devicecheck.budget_exhausted")
        /// The budget's store failed; Apple was not called.
        package static let budgetStoreFailed = Reason("devicecheck.budget_store_failed")
        /// Another status: not shown to be ours, so it must not open the gate.
        package static let refused = Reason("devicecheck.refused")
    }

    package static let genuine = DeviceCheckResult(outcome: .genuine, reason: nil)
    package static func rejected(_ reason: Reason) -> DeviceCheckResult { .init(outcome: .rejected, reason: reason) }
    package static func unavailable(_ reason: Reason) -> DeviceCheckResult {
        .init(outcome: .unavailable, reason: reason)
    }

    package var description: String { reason.map { "\(outcome.rawValue) (\($0.slug))" } ?? outcome.rawValue }
}
