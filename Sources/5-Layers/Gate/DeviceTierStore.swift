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
}

/// The device tier on the device ID's `DEVICE#{id}` / `PROFILE` row (docs/gate.md "Device tiers").
///
/// Contract: a write moves the tier only as `DeviceTier.mayMove` allows, in one conditional write with an
/// own-write token, so a resend after a lost answer reports the tier it wrote and two racing writers end on
/// the more restrictive tier; `first_seen` is stamped on the way if the row had none.
package protocol DeviceTierStore: Sendable {
    /// The stored tier, nil when none was ever written.
    /// - Throws: `StoreError`.
    func storedTier(deviceID: String) async throws -> DeviceTier?

    /// Stores `tier` (with its reason slug) unless the stored tier may not move to it.
    /// - Parameter today: the budget calendar's day, stamped as `first_seen` on a row without one.
    /// - Returns: the tier stored after the write: ours, or the one that refused the move.
    /// - Throws: `StoreError`.
    func recordTier(deviceID: String, tier: DeviceTier, reason: String, today: String) async throws -> DeviceTier
}
