package import AttestCore

/// The merge of provider outcomes into one answer (the order of docs/gate.md, "One metered call").
///
/// 1. App Attest binds the proof to the device ID: its `genuine` or `rejected` decides.
/// 2. Play Integrity binds too: when it was asked, it decides, and only `genuine` passes; its
///    `unavailable` becomes `rejected` (flagged for a metric), because a caller can provoke it.
/// 3. DeviceCheck cannot bind to the ID, so it is consulted only when no binding provider could answer
///    (App Attest abstained or was `unavailable`, and Play Integrity abstained). Deciding alone (App Attest
///    abstained), its `unavailable` becomes `rejected` (flagged) for the same reason as Play's: a caller
///    can provoke Apple's throttling with junk tokens. Behind App Attest's `unavailable` (our own store
///    failed) it stays `unavailable`, and the route's `onUnavailable` decides.
/// 4. Abstaining providers (`nil`) are left out; if every provider abstains the result is `nil`
///    ("no proof"), which is never a pass and never `unavailable`.
///
/// `LayerOneEvidence` calls `evaluate` with the providers themselves; the tests call the same function.
package enum ProviderMerge {
    /// The providers, for logs and metrics.
    package enum Provider: String, Sendable, Hashable {
        case appAttest = "app_attest"
        case playIntegrity = "play_integrity"
        case deviceCheck = "device_check"
    }

    /// One provider's answer: its outcome and, unless it is `genuine`, the reason slug for logs.
    package struct Answer: Sendable, Hashable {
        package var outcome: AttestationOutcome
        package var reason: String?

        package init(_ outcome: AttestationOutcome, reason: String? = nil) {
            self.outcome = outcome
            self.reason = reason
        }

        /// A verifier's result as the merge takes it: its outcome and its reason's slug.
        package init<Reason>(_ result: VerifierResult<Reason>) {
            self.init(result.outcome, reason: result.reason?.slug)
        }

        package static let genuine = Answer(.genuine)
        package static func rejected(_ reason: String) -> Answer { Answer(.rejected, reason: reason) }
        package static func unavailable(_ reason: String) -> Answer { Answer(.unavailable, reason: reason) }
    }

    /// The merged answer.
    package struct Result: Sendable, Hashable {
        /// The decision; nil when every provider abstained (no proof at all).
        package var outcome: AttestationOutcome?
        /// The provider whose outcome was taken; nil when every provider abstained.
        package var decidedBy: Provider?
        /// True when a provider answered `unavailable` and the merge turned it into `rejected` (Play
        /// Integrity, or DeviceCheck alone): the gate still counts the `unavailable` metric.
        package var unavailableRejected: Bool
        /// The deciding provider's reason slug (nil when genuine or when nobody answered).
        package var reason: String?

        package init(
            outcome: AttestationOutcome?,
            decidedBy: Provider?,
            unavailableRejected: Bool = false,
            reason: String? = nil
        ) {
            self.outcome = outcome
            self.decidedBy = decidedBy
            self.unavailableRejected = unavailableRejected
            self.reason = reason
        }

        /// True only when the merged answer is `genuine`.
        package var passes: Bool { outcome == .genuine }
    }

    /// Merges answers that are all known already.
    /// - Parameters:
    ///   - appAttest: App Attest's answer, nil if it abstained.
    ///   - playIntegrity: Play Integrity's answer, nil if it abstained.
    ///   - deviceCheck: DeviceCheck's answer, nil if it abstained. Ignored whenever a binding provider
    ///     could answer.
    package static func merge(appAttest: Answer?, playIntegrity: Answer?, deviceCheck: Answer?) -> Result {
        if let decided = binding(appAttest: appAttest, playIntegrity: playIntegrity) { return decided }
        return fallback(appAttest: appAttest, deviceCheck: deviceCheck)
    }

    /// Merges lazily: each provider is asked only when the answers before it leave the result open, in
    /// the order App Attest, Play Integrity, DeviceCheck. The result always equals `merge` over the
    /// answers the closures would have returned.
    package static func evaluate(
        appAttest: () async -> Answer?,
        playIntegrity: () async -> Answer?,
        deviceCheck: () async -> Answer?
    ) async -> Result {
        let apple = await appAttest()
        if let decided = decisive(apple) { return decided }
        let play = await playIntegrity()
        if let decided = binding(appAttest: apple, playIntegrity: play) { return decided }
        return fallback(appAttest: apple, deviceCheck: await deviceCheck())
    }

    /// App Attest's answer when it decides alone.
    private static func decisive(_ appAttest: Answer?) -> Result? {
        guard let appAttest, appAttest.outcome != .unavailable else { return nil }
        return Result(outcome: appAttest.outcome, decidedBy: .appAttest, reason: appAttest.reason)
    }

    /// Steps 1 and 2: the answer of a binding provider, or nil when none could answer.
    private static func binding(appAttest: Answer?, playIntegrity: Answer?) -> Result? {
        if let decided = decisive(appAttest) { return decided }
        guard let playIntegrity else { return nil }
        switch playIntegrity.outcome {
        case .genuine, .rejected:
            return Result(outcome: playIntegrity.outcome, decidedBy: .playIntegrity, reason: playIntegrity.reason)
        case .unavailable:
            return Result(
                outcome: .rejected,
                decidedBy: .playIntegrity,
                unavailableRejected: true,
                reason: playIntegrity.reason
            )
        }
    }

    /// Steps 3 and 4: DeviceCheck, then App Attest's `unavailable`, then no proof.
    private static func fallback(appAttest: Answer?, deviceCheck: Answer?) -> Result {
        if let deviceCheck {
            switch deviceCheck.outcome {
            case .genuine, .rejected:
                return Result(outcome: deviceCheck.outcome, decidedBy: .deviceCheck, reason: deviceCheck.reason)
            case .unavailable:
                guard let appAttest else {
                    // DeviceCheck alone: Apple's throttling is reachable by a caller, so it refuses.
                    return Result(
                        outcome: .rejected,
                        decidedBy: .deviceCheck,
                        unavailableRejected: true,
                        reason: deviceCheck.reason
                    )
                }
                // Both could not answer: report App Attest's unavailability (our store) first.
                return Result(outcome: .unavailable, decidedBy: .appAttest, reason: appAttest.reason)
            }
        }
        if let appAttest { return Result(outcome: .unavailable, decidedBy: .appAttest, reason: appAttest.reason) }
        return Result(outcome: nil, decidedBy: nil)
    }
}
