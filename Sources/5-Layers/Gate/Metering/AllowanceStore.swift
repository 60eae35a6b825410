/// A unit of a subject's allowance, reserved for one metered call.
package struct AllowanceReservation: Sendable, Hashable {
    package let subject: Subject
    package let feature: String
    /// The day row (`YYYY-MM-DD` in `BUDGET_TIMEZONE`) the unit was taken from.
    package let day: String
    /// Calls left after this one.
    package let remaining: Int
    /// Names this reservation's single release (minted by the store): a resent release never applies twice.
    package let callID: String

    package init(subject: Subject, feature: String, day: String, remaining: Int, callID: String) {
        self.subject = subject
        self.feature = feature
        self.day = day
        self.remaining = remaining
        self.callID = callID
    }
}

/// Per-subject, per-feature daily allowances (layer 2) in `QUOTA#{feature}#{day}` rows.
///
/// Contract: `reserve` takes one unit if fewer than `limit` were taken that day, atomically (a
/// conditional write); `release` gives one back at most once per reservation, whatever resends and other
/// writers do. Both are resend-safe: a resend after a lost answer never counts twice and never refuses
/// itself.
package protocol AllowanceStore: Sendable {
    /// - Returns: the reservation, or nil when the allowance for that day is used up.
    /// - Throws: `StoreError`.
    func reserve(subject: Subject, feature: String, day: String, limit: Int) async throws -> AllowanceReservation?

    /// Gives the unit back (the provider never answered, so the call was not billed).
    /// - Throws: `StoreError`.
    func release(_ reservation: AllowanceReservation) async throws
}

/// A subject's `PROFILE` row as the metered path reads it: when it was first seen, which decides its first-day
/// allowance, and for a device ID its tier (docs/gate.md "Device tiers"). A user's row has no tier.
package struct DeviceProfile: Sendable, Hashable {
    /// The first day (`YYYY-MM-DD` in `BUDGET_TIMEZONE`) the subject was seen.
    package var firstSeen: String
    /// The stored tier; nil when none was ever written (`DeviceTierPolicy.forCall` infers one).
    package var tier: DeviceTier?
    /// The bounded reason slug stored with the tier (`mark.clear`, `risk.flagged`, ...).
    package var tierReason: String?
    /// `tier_marked`: for a `first` a DeviceCheck mark made, the mark's month (`YYYY-MM`); the `first` expires
    /// with it (`DeviceTierPolicy.firstExpired`).
    package var tierMarked: String?
    /// `blocked_reason`: an operator blocked this subject (`attestgate device block`); every metered call is
    /// refused with `403 device_blocked` until `unblock` (docs/operations.md, "Live controls").
    package var blocked: String?

    package init(
        firstSeen: String,
        tier: DeviceTier? = nil,
        tierReason: String? = nil,
        tierMarked: String? = nil,
        blocked: String? = nil
    ) {
        self.firstSeen = firstSeen
        self.tier = tier
        self.tierReason = tierReason
        self.tierMarked = tierMarked
        self.blocked = blocked
    }
}

/// Each subject's profile: its first-seen day and, for a device ID, its tier.
package protocol ProfileStore: Sendable {
    /// The subject's profile, recording `today` as its first-seen day if it was never seen: one write that
    /// returns the row, so the tier costs no request of its own.
    /// - Throws: `StoreError`.
    func profile(subject: Subject, today: String) async throws -> DeviceProfile
}

extension ProfileStore {
    /// The first day `subject` was seen, recording `today` if it never was.
    /// - Throws: `StoreError`.
    package func firstSeenDay(subject: Subject, today: String) async throws -> String {
        try await profile(subject: subject, today: today).firstSeen
    }
}
