package import AttestCore
package import FoundationEssentials
package import PlayIntegrity

/// What a call whose Play Integrity verdict was `genuine` leaves for the device tier (with
/// `PLAY_DEVICE_RECALL=on`): the verdict's recall bits and the integrity token that a write needs.
package struct PlayRecallEvidence: Sendable, Hashable {
    package var recall: DeviceRecallReading
    /// `X-Play-Integrity-Token`, for `deviceRecall.write`. Never logged.
    package var integrityToken: String

    package init(recall: DeviceRecallReading, integrityToken: String) {
        self.recall = recall
        self.integrityToken = integrityToken
    }
}

/// The tier a device recall step recorded.
package struct TierSettlement: Sendable, Hashable {
    /// What `recordTier` returned: ours, or a stricter one a racing writer stored first.
    package var tier: DeviceTier
    /// `recall.set`, `recall.clear` or `recall.unavailable`.
    package var reason: String
    package var signal: RecallSignal

    package init(tier: DeviceTier, reason: String, signal: RecallSignal) {
        self.tier = tier
        self.reason = reason
        self.signal = signal
    }

    /// Google's recall was not usable: counted once in the `unavailable` metric.
    package var unavailable: Bool { signal == .unavailable }
}

/// Android's device tier from Play Integrity's device recall (docs/gate.md "Device tiers",
/// docs/playintegrity.md "Device recall"), on a metered call whose verdict was `genuine`, for a device ID
/// whose tier is absent or `unknown`:
///
/// - `bitFirst` set: another device ID on this physical device had the first tier → `repeat` (`recall.set`);
/// - `bitFirst` clear: the bit is written through Google's `deviceRecall.write`, then → `first` (`recall.clear`);
/// - no recall values in the verdict (or a shape we do not know), or the write failed → `unknown`
///   (`recall.unavailable`, counted in the `unavailable` metric).
///
/// A settled tier (`first`, `repeat`) is never looked at again: nothing is read or written for it, so the
/// steady state costs no request beyond the profile read the call makes anyway. An `unknown` tier that
/// stays `unknown` is not written again either.
package struct PlayRecallTiering: Sendable {
    let writer: any DeviceRecallWriting
    let tiers: any DeviceTierStore
    let logger: Logger

    package init(writer: any DeviceRecallWriting, tiers: any DeviceTierStore, logger: Logger) {
        self.writer = writer
        self.tiers = tiers
        self.logger = logger
    }

    /// Settles `deviceID`'s tier from `evidence` unless `stored` is settled already.
    /// - Parameters:
    ///   - stored: the tier on the device ID's profile row (nil: none).
    ///   - today: the budget calendar's day (`recordTier` stamps it as `first_seen` on a row without one).
    /// - Returns: the recorded tier, or nil when `stored` is `first` or `repeat` (nothing done).
    /// - Throws: `StoreError` from `recordTier` (the call then answers 503 like any store failure).
    package func settle(
        deviceID: String,
        stored: DeviceTier?,
        evidence: PlayRecallEvidence,
        today: String,
        now: Date
    ) async throws -> TierSettlement? {
        guard stored == nil || stored == .unknown else { return nil }
        let signal = await signal(evidence, deviceID: deviceID, now: now)
        let reason = Self.reason(signal)
        // Still unknown: nothing to store (the row says so already).
        if stored == .unknown && signal == .unavailable {
            return TierSettlement(tier: .unknown, reason: reason.slug, signal: signal)
        }
        let recorded = try await tiers.recordTier(
            deviceID: deviceID,
            tier: signal.tier,
            reason: reason.slug,
            today: today
        )
        return TierSettlement(tier: recorded, reason: reason.slug, signal: signal)
    }

    /// Reads the verdict's bit and, when it is clear, writes it.
    func signal(_ evidence: PlayRecallEvidence, deviceID: String, now: Date) async -> RecallSignal {
        guard let recall = evidence.recall.recall else {
            logger.info(
                "play device recall not in the verdict",
                [
                    "device": .string(Subject.device(deviceID).logSuffix),
                    "recall": .string(evidence.recall == .absent ? "absent" : "unrecognized"),
                ]
            )
            return .unavailable
        }
        if recall.bitFirst { return .set }
        do {
            try await writer.setFirstBit(integrityToken: evidence.integrityToken, now: now)
            return .clear
        } catch {
            logger.warning(
                "play device recall write failed",
                ["device": .string(Subject.device(deviceID).logSuffix), "reason": .string(error.reason.slug)]
            )
            return .unavailable
        }
    }

    static func reason(_ signal: RecallSignal) -> GateReason {
        switch signal {
        case .set: .recallSet
        case .clear: .recallClear
        case .unavailable, .off: .recallUnavailable
        }
    }
}
