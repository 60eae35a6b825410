extension DeviceTier {
    /// Whether a stored tier may be replaced by `next`: an absent or `unknown` tier by any; `first` only by
    /// `repeat` (a flag); `repeat` by none (a device ID never earns its free tier back).
    package static func mayMove(from stored: DeviceTier?, to next: DeviceTier) -> Bool {
        switch stored {
        case nil, .unknown?: true
        case .first?: next == .repeat
        case .repeat?: false
        }
    }

    /// `mayMove(from:to:)` with the month of the mark behind each `first` (`tier_marked`): a `first` a mark
    /// made may also replace a stored `first` whose mark is older or unknown, which renews it for another
    /// `DEVICE_MARK_MONTHS` (docs/gate.md "Device tiers"). Months are `YYYY-MM`, ordered as text.
    package static func mayMove(
        from stored: DeviceTier?,
        marked storedMarked: String?,
        to next: DeviceTier,
        marked: String?
    )
        -> Bool
    {
        if stored == .first, next == .first, let marked { return storedMarked.map { $0 < marked } ?? true }
        return mayMove(from: stored, to: next)
    }
}

/// The device tier on the device ID's `DEVICE#{id}` / `PROFILE` row (docs/gate.md "Device tiers").
///
/// Contract: a write moves the tier only as `DeviceTier.mayMove(from:marked:to:marked:)` allows, in one
/// conditional write with an own-write token, so a resend after a lost answer reports the tier it wrote and
/// two racing writers end on the more restrictive tier; `first_seen` is stamped on the way if the row had none.
package protocol DeviceTierStore: Sendable {
    /// The stored profile row (tier, reason, `tier_marked`), nil when the device ID has none.
    /// - Throws: `StoreError`.
    func storedProfile(deviceID: String) async throws -> DeviceProfile?

    /// Stores `tier` (with its reason slug) unless the stored tier may not move to it.
    /// - Parameters:
    ///   - today: the budget calendar's day, stamped as `first_seen` on a row without one.
    ///   - marked: for a `first` whose bit 0 this step wrote, the mark's month (`YYYY-MM`, `tier_marked`):
    ///     the `first` expires with it. nil for any other tier or a `first` no mark made.
    /// - Returns: the tier stored after the write: ours, or the one that refused the move.
    /// - Throws: `StoreError`.
    func recordTier(
        deviceID: String,
        tier: DeviceTier,
        reason: String,
        today: String,
        marked: String?
    ) async throws -> DeviceTier
}

extension DeviceTierStore {
    /// The stored tier, nil when none was ever written.
    /// - Throws: `StoreError`.
    package func storedTier(deviceID: String) async throws -> DeviceTier? {
        try await storedProfile(deviceID: deviceID)?.tier
    }

    /// `recordTier` for a tier no mark made (no `tier_marked`).
    /// - Throws: `StoreError`.
    package func recordTier(
        deviceID: String,
        tier: DeviceTier,
        reason: String,
        today: String
    ) async throws
        -> DeviceTier
    {
        try await recordTier(deviceID: deviceID, tier: tier, reason: reason, today: today, marked: nil)
    }
}
