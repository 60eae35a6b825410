/// A verifier's bounded reason slug, for logs only (never shown to a client).
package protocol VerifierReason: Sendable, Hashable {
    var slug: String { get }
}

/// One provider check's outcome and, unless it is `genuine`, the reason: the one result shape of the
/// verifiers that answer rather than throw (Play Integrity, DeviceCheck). The gate's merge takes it as it is
/// (`ProviderMerge.Answer(_:)`).
package struct VerifierResult<Reason: VerifierReason>: Sendable, Hashable, CustomStringConvertible {
    package let outcome: AttestationOutcome
    package let reason: Reason?

    package init(outcome: AttestationOutcome, reason: Reason?) {
        self.outcome = outcome
        self.reason = reason
    }

    package static var genuine: Self { Self(outcome: .genuine, reason: nil) }
    package static func rejected(_ reason: Reason) -> Self { Self(outcome: .rejected, reason: reason) }
    package static func unavailable(_ reason: Reason) -> Self { Self(outcome: .unavailable, reason: reason) }

    package var description: String { reason.map { "\(outcome.rawValue) (\($0.slug))" } ?? outcome.rawValue }
}
