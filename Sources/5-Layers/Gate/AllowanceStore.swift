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

/// When each subject was first seen, which decides its first-day allowance.
package protocol ProfileStore: Sendable {
    /// The first day `subject` was seen, recording `today` if it never was.
    /// - Throws: `StoreError`.
    func firstSeenDay(subject: Subject, today: String) async throws -> String
}
