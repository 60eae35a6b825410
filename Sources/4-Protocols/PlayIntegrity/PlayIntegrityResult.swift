package import AttestCore

/// The outcome of one Play Integrity check and, unless it is `genuine`, the reason slug for logs.
package typealias PlayIntegrityResult = VerifierResult<PlayIntegrityError.Reason>

extension PlayIntegrityError.Reason: VerifierReason {}
