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
    /// The device's profile (first-seen day, tier) when the evaluation read it on the way (the key lookup
    /// reads it in the same request): saves the profile write.
    package var profile: DeviceProfile?
    /// The device ID holds an App Attest key (the lookup found one): with device marks on and no stored
    /// tier, a key registered before marks were turned on is `unknown`, never `repeat`.
    package var attestedKey: Bool
    /// A tier this call's evaluation wrote (a risk refresh that flagged the device): the call is metered by
    /// it instead of the profile's, and logged with its reason.
    package var recordedTier: RecordedTier?
    /// A binding provider was unavailable and the merge refused the call anyway (Play Integrity's
    /// UNAVAILABLE becomes REJECTED): counted in the `unavailable` metric although the evidence is `rejected`.
    package var providerUnavailable: Bool
    /// Play Integrity decided `genuine`: the verdict's device recall bits and the token, for the device tier
    /// (`PlayRecallTiering`, used only with `PLAY_DEVICE_RECALL=on`). nil for any other call.
    package var playRecall: PlayRecallEvidence? = nil
    /// The App Attest key the device ID holds is blocked by an operator (`StoredAppAttestKey.blocked`): the
    /// call is refused whatever its evidence.
    package var keyBlocked = false

    package init(
        evidence: GateEvidence,
        spentChallenge: Bool = false,
        profile: DeviceProfile? = nil,
        attestedKey: Bool = false,
        recordedTier: RecordedTier? = nil,
        providerUnavailable: Bool = false
    ) {
        self.evidence = evidence
        self.spentChallenge = spentChallenge
        self.profile = profile
        self.attestedKey = attestedKey
        self.recordedTier = recordedTier
        self.providerUnavailable = providerUnavailable
    }
}

/// A tier written on the metered path, as `DeviceTierStore.recordTier` returned it, with its reason slug.
package struct RecordedTier: Sendable, Hashable {
    package var tier: DeviceTier
    package var reason: String

    package init(tier: DeviceTier, reason: String) {
        self.tier = tier
        self.reason = reason
    }
}
