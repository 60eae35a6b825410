package import AttestCore

/// The outcome of one Play Integrity check and, unless it is `genuine`, the reason slug for logs.
package struct PlayIntegrityResult: Sendable, Hashable, CustomStringConvertible {
    package let outcome: AttestationOutcome
    package let reason: PlayIntegrityError.Reason?

    package static let genuine = PlayIntegrityResult(outcome: .genuine, reason: nil)

    package static func rejected(_ reason: PlayIntegrityError.Reason) -> PlayIntegrityResult {
        PlayIntegrityResult(outcome: .rejected, reason: reason)
    }

    package static func unavailable(_ reason: PlayIntegrityError.Reason) -> PlayIntegrityResult {
        PlayIntegrityResult(outcome: .unavailable, reason: reason)
    }

    package var description: String { reason.map { "\(outcome.rawValue) (\($0.slug))" } ?? outcome.rawValue }
}
