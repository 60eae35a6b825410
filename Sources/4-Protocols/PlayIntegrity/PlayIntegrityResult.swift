package import AttestCore

/// The outcome of one Play Integrity check and, unless it is `genuine`, the reason slug for logs.
package typealias PlayIntegrityResult = VerifierResult<PlayIntegrityError.Reason>

extension PlayIntegrityError.Reason: VerifierReason {}

/// `PlayIntegrityVerifier.check`'s answer: the result, and the device recall bits of a genuine verdict.
package struct PlayCheck: Sendable, Hashable {
    package var result: PlayIntegrityResult
    /// The verdict's `deviceIntegrity.deviceRecall`; `.absent` unless the result is `genuine`.
    package var recall: DeviceRecallReading

    package init(result: PlayIntegrityResult, recall: DeviceRecallReading = .absent) {
        self.result = result
        self.recall = recall
    }

    init(_ answer: (PlayIntegrityResult, IntegrityPayload?)) {
        self.init(result: answer.0, recall: answer.1?.deviceRecall ?? .absent)
    }
}
