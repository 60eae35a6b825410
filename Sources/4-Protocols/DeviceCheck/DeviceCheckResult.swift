package import AttestCore

/// The outcome of one DeviceCheck validation and, unless it is `genuine`, the reason slug for logs.
///
/// DeviceCheck proves a genuine Apple device but cannot bind to the device ID, so the merge consults it
/// only when no binding provider could answer, on routes that opt in (docs/gate.md).
package typealias DeviceCheckResult = VerifierResult<DeviceCheckReason>

/// Why a DeviceCheck validation was not `genuine`.
package struct DeviceCheckReason: VerifierReason, CustomStringConvertible {
    package let slug: String
    private init(_ slug: String) { self.slug = slug }
    package var description: String { slug }

    /// The token is not base64 or is implausibly long; Apple was not called.
    package static let tokenMalformed = DeviceCheckReason("devicecheck.token_malformed")
    /// Apple answered 400: the device token is invalid.
    package static let tokenRejected = DeviceCheckReason("devicecheck.token_rejected")
    /// Apple refused our JWT (401/403): our key or team is at fault.
    package static let unauthorized = DeviceCheckReason("devicecheck.unauthorized")
    /// 429, 5xx, timeout or connection failure.
    package static let serviceUnavailable = DeviceCheckReason("devicecheck.unavailable")
    /// Signing our JWT failed.
    package static let signingFailed = DeviceCheckReason("devicecheck.signing_failed")
    /// The device ID's daily DeviceCheck budget is spent; Apple was not called.
    package static let budgetExhausted = DeviceCheckReason("devicecheck.budget_exhausted")
    /// The budget's store failed; Apple was not called.
    package static let budgetStoreFailed = DeviceCheckReason("devicecheck.budget_store_failed")
    /// Another status: not shown to be ours, so it must not open the gate.
    package static let refused = DeviceCheckReason("devicecheck.refused")
}
