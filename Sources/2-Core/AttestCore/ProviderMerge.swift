/// The merge of provider outcomes into one answer, exactly as docs/api.md §3 and docs/playintegrity.md state it.
///
/// 1. App Attest binds the proof to the device ID: its `genuine` or `rejected` decides.
/// 2. Play Integrity binds too: when it was asked, it decides, and only `genuine` passes; its
///    `unavailable` becomes `rejected` (flagged for a metric), because a caller can provoke it.
/// 3. DeviceCheck cannot bind to the ID, so it is consulted only when no binding provider could answer
///    (App Attest abstained or was `unavailable`, and Play Integrity abstained).
/// 4. Abstaining providers (`nil`) are left out; if every provider abstains the result is `nil`
///    ("no proof"), which is never a pass and never `unavailable`.
package enum ProviderMerge {
    /// The providers, for logs and metrics.
    package enum Provider: String, Sendable, Hashable {
        case appAttest = "app_attest"
        case playIntegrity = "play_integrity"
        case deviceCheck = "device_check"
    }

    /// The merged answer.
    package struct Result: Sendable, Hashable {
        /// The decision; nil when every provider abstained (no proof at all).
        package var outcome: AttestationOutcome?
        /// The provider whose outcome was taken; nil when every provider abstained.
        package var decidedBy: Provider?
        /// True when Play Integrity answered `unavailable` and the merge turned it into `rejected`
        /// (the gate emits the `unavailable` metric with this flag).
        package var bindingUnavailableRejected: Bool

        package init(outcome: AttestationOutcome?, decidedBy: Provider?, bindingUnavailableRejected: Bool = false) {
            self.outcome = outcome
            self.decidedBy = decidedBy
            self.bindingUnavailableRejected = bindingUnavailableRejected
        }

        /// True only when the merged answer is `genuine`.
        package var passes: Bool { outcome == .genuine }
    }

    /// Merges outcomes that are all known already.
    /// - Parameters:
    ///   - appAttest: App Attest's outcome, nil if it abstained.
    ///   - playIntegrity: Play Integrity's outcome, nil if it abstained.
    ///   - deviceCheck: DeviceCheck's outcome, nil if it abstained. Ignored whenever a binding provider
    ///     could answer.
    package static func merge(
        appAttest: AttestationOutcome?,
        playIntegrity: AttestationOutcome?,
        deviceCheck: AttestationOutcome?
    ) -> Result {
        if let decided = binding(appAttest: appAttest, playIntegrity: playIntegrity) { return decided }
        return fallback(appAttest: appAttest, deviceCheck: deviceCheck)
    }

    /// Merges lazily: each provider is asked only when the outcomes before it leave the answer open,
    /// in the seed's order (App Attest, then Play Integrity, then DeviceCheck). The result always equals
    /// `merge` over the outcomes the closures would have returned.
    package static func evaluate(
        appAttest: () async -> AttestationOutcome?,
        playIntegrity: () async -> AttestationOutcome?,
        deviceCheck: () async -> AttestationOutcome?
    ) async -> Result {
        let apple = await appAttest()
        if apple == .genuine || apple == .rejected { return Result(outcome: apple, decidedBy: .appAttest) }
        let play = await playIntegrity()
        if let decided = binding(appAttest: apple, playIntegrity: play) { return decided }
        return fallback(appAttest: apple, deviceCheck: await deviceCheck())
    }

    /// Steps 1 and 2: the answer of a binding provider, or nil when none could answer.
    private static func binding(appAttest: AttestationOutcome?, playIntegrity: AttestationOutcome?) -> Result? {
        switch appAttest {
        case .genuine, .rejected: return Result(outcome: appAttest, decidedBy: .appAttest)
        case .unavailable, nil: break
        }
        switch playIntegrity {
        case .genuine: return Result(outcome: .genuine, decidedBy: .playIntegrity)
        case .rejected: return Result(outcome: .rejected, decidedBy: .playIntegrity)
        case .unavailable:
            return Result(outcome: .rejected, decidedBy: .playIntegrity, bindingUnavailableRejected: true)
        case nil: return nil
        }
    }

    /// Step 3 and 4: DeviceCheck, then App Attest's `unavailable`, then no proof.
    private static func fallback(appAttest: AttestationOutcome?, deviceCheck: AttestationOutcome?) -> Result {
        switch deviceCheck {
        case .genuine, .rejected: return Result(outcome: deviceCheck, decidedBy: .deviceCheck)
        case .unavailable:
            // Both could not answer: report App Attest's unavailability first when it was asked.
            return Result(outcome: .unavailable, decidedBy: appAttest == nil ? .deviceCheck : .appAttest)
        case nil:
            if appAttest == .unavailable { return Result(outcome: .unavailable, decidedBy: .appAttest) }
            return Result(outcome: nil, decidedBy: nil)
        }
    }
}
