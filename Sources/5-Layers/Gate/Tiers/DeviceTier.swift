internal import DeviceCheck
package import FoundationEssentials

/// A guest device ID's tier (docs/gate.md, "Device tiers"): whether it holds the first free tier
/// on its physical device. Stored on the device ID's `PROFILE` row and shown on every decision line.
package enum DeviceTier: String, Sendable, Hashable, CaseIterable {
    /// The first free tier on this physical device: the route's `allowance`.
    case first
    /// Another device ID on a device that already has one, or a device flagged by the fraud-risk metric:
    /// the route's `repeatAllowance`.
    case `repeat`
    /// The platform's mark could not be read (Apple or Google down, a receipt not yet verified): the
    /// route's `onUnknownDevice` decides.
    case unknown

    /// How restrictive a tier is, for combining signals: the most restrictive signal wins.
    var severity: Int {
        switch self {
        case .first: 0
        case .unknown: 1
        case .repeat: 2
        }
    }

    /// The more restrictive of two tiers.
    package func restricted(by other: DeviceTier) -> DeviceTier { other.severity > severity ? other : self }
}

/// Route field `onUnknownDevice`: how an `unknown` device is metered (`repeat` unless the route opts in).
package enum UnknownDevicePolicy: String, Sendable, Hashable {
    case `repeat`
    case first

    /// The tier an `unknown` device is metered as.
    package var meteredAs: DeviceTier { self == .first ? .first : .repeat }
}

/// What DeviceCheck's two bits said about the physical device at key registration (iOS, `DEVICE_MARKS=on`).
package enum MarkSignal: Sendable, Hashable {
    /// No mark, or one older than `DEVICE_MARK_MONTHS`. Bit 0 is not written yet: the tier step writes it only
    /// when the tier it records is `first` (docs/appattest.md "Device marks").
    case clear
    /// A mark in force: bit 0 (a free tier was given) or bit 1 (flagged) set within `DEVICE_MARK_MONTHS`.
    case set
    /// No `deviceCheckToken`, or Apple refused it as malformed (400): request content never yields `first`.
    case missingToken
    /// Apple unreachable, 5xx, 429, a timeout, the per-device budget spent, our JWT not ready, or the bit
    /// write after a clear read failed.
    case unavailable
    /// Device marks are off.
    case off

    /// The tier this signal alone gives (`off` is neutral).
    package var tier: DeviceTier {
        switch self {
        case .clear, .off: .first
        case .set, .missingToken: .repeat
        case .unavailable: .unknown
        }
    }
}

/// App Attest's fraud-risk metric, from a receipt Apple returned and we verified.
package enum RiskSignal: Sendable, Hashable {
    /// The verified receipt's metric.
    case metric(Int)
    /// Our own check refused the attestation's receipt and Apple has not returned a verified one yet. The
    /// attestation's signature does not cover its receipt, so this is request content: `repeat`, never better
    /// than no receipt (docs/threat-model.md).
    case unverified
    /// Apple's receipt endpoint down, refusing, or the per-device budget spent, and no verified receipt
    /// stored yet.
    case unavailable
    /// Not asked: marks off, or nothing due.
    case notAsked

    /// The tier this signal alone gives, with `max` the `RISK_METRIC_MAX` setting.
    package func tier(max: Int) -> DeviceTier {
        switch self {
        case .metric(let value): value > max ? .repeat : .first
        case .unverified: .repeat
        case .unavailable: .unknown
        case .notAsked: .first
        }
    }
}

/// What Play Integrity's device recall bits said about the physical device (Android, `PLAY_DEVICE_RECALL=on`).
package enum RecallSignal: Sendable, Hashable {
    /// The verdict's recall bits were read and the free-tier bit was clear; this call has written it.
    case clear
    /// The free-tier bit was already set: another device ID on this device had the first tier.
    case set
    /// The verdict carried no recall values, or the write failed.
    case unavailable
    /// Recall is off.
    case off

    /// The tier this signal alone gives (`off` is neutral).
    package var tier: DeviceTier {
        switch self {
        case .clear, .off: .first
        case .set: .repeat
        case .unavailable: .unknown
        }
    }
}

/// Combines the platform signals into a device ID's tier (docs/gate.md "Device tiers").
package enum DeviceTierPolicy {
    /// The tier of an App Attest key registration.
    /// - Parameters:
    ///   - previous: the tier stored on the device ID's profile before this registration, if any.
    ///   - heldKey: the device ID already held a key (`re_registered` or `rebound`): a reinstall that keeps
    ///     its device ID keeps a settled tier, because the mark it then reads is its own.
    ///   - mark: the two bits' answer (`MarkSignal.off` when marks are off).
    ///   - risk: the fraud-risk metric's answer.
    ///   - riskMax: `RISK_METRIC_MAX`.
    /// - Returns: the tier to store. A flag (`risk` above `riskMax`) or a receipt our check refused is always
    ///   `repeat`.
    package static func atRegistration(
        previous: DeviceTier?,
        heldKey: Bool,
        mark: MarkSignal,
        risk: RiskSignal,
        riskMax: Int
    ) -> DeviceTier {
        let riskTier = risk.tier(max: riskMax)
        if riskTier == .repeat { return .repeat }
        if heldKey, let previous, previous != .unknown { return previous.restricted(by: riskTier) }
        return mark.tier.restricted(by: riskTier)
    }

    /// The tier a metered call is metered as.
    /// - Parameters:
    ///   - stored: the tier on the device ID's profile row, if any.
    ///   - tiering: whether any device signal is on for this device's platform (`DEVICE_MARKS` for a device
    ///     with an App Attest key, `PLAY_DEVICE_RECALL` for Android).
    ///   - attestedKey: the device ID holds an App Attest key (one registered before marks were turned on
    ///     has no tier: `first`, reason `tier.legacy_key`, so turning marks on never demotes the installed
    ///     base; its next due risk refresh records its tier).
    /// - Returns: the tier as stored or inferred; `onUnknownDevice` is applied by `allowance(for:)`.
    package static func forCall(stored: DeviceTier?, tiering: Bool, attestedKey: Bool) -> DeviceTier {
        if let stored { return stored }
        guard tiering else { return .first }
        return attestedKey ? .first : .repeat
    }

    /// Whether a stored `first` has expired with the DeviceCheck mark that made it (docs/gate.md "Device
    /// tiers"): the mark's month is `tier_marked`; a `first` a mark made before `tier_marked` was kept
    /// (`mark.clear` without it) counts from its `first_seen` month, never later than its mark. A `first` no
    /// mark made (a legacy key's, Android's recall) never expires; an unreadable month has expired (no extra
    /// `first`).
    /// - Parameter markMonths: `DEVICE_MARK_MONTHS`, as `DeviceMarkPolicy` reads Apple's mark.
    package static func firstExpired(_ profile: DeviceProfile, now: Date, markMonths: Int) -> Bool {
        guard profile.tier == .first else { return false }
        let text: String
        if let marked = profile.tierMarked {
            text = marked
        } else if profile.tierReason == GateReason.markClear.slug {
            text = String(profile.firstSeen.prefix(7))
        } else {
            return false
        }
        guard let month = BitsMonth(apple: text) else { return true }
        return DeviceMarkPolicy.expired(month, now: now, markMonths: markMonths)
    }
}

/// Which platforms tier their devices (the App layer sets it from configuration): `marks` for a device with
/// an App Attest key (`DEVICE_MARKS=on`), `recall` for Android (`PLAY_DEVICE_RECALL=on`). Off for a platform,
/// every device ID without a stored tier is `first`: the behaviour before device tiers.
package struct DeviceTiering: Sendable, Hashable {
    package var marks: Bool
    package var recall: Bool
    /// `DEVICE_MARK_MONTHS`: a `first` a mark made expires with it (`DeviceTierPolicy.firstExpired`).
    package var markMonths: Int

    package init(marks: Bool = false, recall: Bool = false, markMonths: Int = DeviceMarkPolicy.defaultMonths) {
        self.marks = marks
        self.recall = recall
        self.markMonths = markMonths
    }

    /// Whether tiering is on for the platform a call's evidence names: an App Attest key, or an App Attest
    /// or DeviceCheck proof, is Apple's (`marks`); a Play Integrity proof is Android's (`recall`); a call
    /// with no proof names no platform (off: only a stored tier applies).
    package func on(attestedKey: Bool, proof: GateEvidence.ProofKind) -> Bool {
        if attestedKey { return marks }
        switch proof {
        case .appAttest, .deviceCheck: return marks
        case .playIntegrity: return recall
        case .none, .debug: return false
        }
    }
}
