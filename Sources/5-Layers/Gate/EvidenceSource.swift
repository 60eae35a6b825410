package import FoundationEssentials

/// Evaluates the proof a metered call carries (layer 1) and reports what the rest of the call needs.
package protocol EvidenceSource: Sendable {
    /// Spends the call's challenge, verifies its proof and merges the providers (docs/playintegrity.md, the merge).
    /// Never throws: our own store failing is `unavailable`, never a crash and never an approval.
    func evaluate(request: MeteredRequest, deviceID: String, route: MeteredRoute, now: Date) async -> EvidenceReport
}

/// The result of `EvidenceSource.evaluate`.
package struct EvidenceReport: Sendable, Hashable {
    package var evidence: GateEvidence
    /// True when this call spent a challenge, so it may be handed the next one (one spent, one issued:
    /// the metered path can never grow a device's live challenges).
    package var spentChallenge: Bool
    /// The device's first-seen day when the evaluation read it on the way (saves a request).
    package var firstSeen: String?
    /// A binding provider was unavailable and the merge refused the call anyway (Play Integrity's
    /// UNAVAILABLE becomes REJECTED): counted in the `unavailable` metric although the evidence is `rejected`.
    package var providerUnavailable: Bool
    /// Play Integrity decided `genuine`: the verdict's device recall bits and the token, for the device tier
    /// (`PlayRecallTiering`, used only with `PLAY_DEVICE_RECALL=on`). nil for any other call.
    package var playRecall: PlayRecallEvidence? = nil

    package init(
        evidence: GateEvidence,
        spentChallenge: Bool = false,
        firstSeen: String? = nil,
        providerUnavailable: Bool = false
    ) {
        self.evidence = evidence
        self.spentChallenge = spentChallenge
        self.firstSeen = firstSeen
        self.providerUnavailable = providerUnavailable
    }
}
