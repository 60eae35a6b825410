/// One unit of the environment's daily ceiling on unpaid AI calls.
package struct CeilingReservation: Sendable, Hashable {
    package let day: String
    /// Calls counted that day, this one included.
    package let used: Int
    /// Whether the day's 80 % warning has already been claimed.
    package let warned: Bool

    package init(day: String, used: Int, warned: Bool) {
        self.day = day
        self.used = used
        self.warned = warned
    }
}

/// The environment-wide daily ceiling (layer 3) in the `AI_BUDGET#{day}` / `TOTAL` row.
///
/// Contract: `reserve` counts one call before it is made, with a condition that is both "below the
/// limit" and "not our own resend"; `release` gives a unit back exactly once; `claimWarning` returns true
/// to exactly one caller per day (a conditional write on `warned`).
package protocol CeilingStore: Sendable {
    /// - Returns: the reservation, or nil when the day's ceiling is reached.
    /// - Throws: `StoreError` (the caller fails closed).
    func reserve(day: String, limit: Int) async throws -> CeilingReservation?

    /// - Throws: `StoreError`.
    func release(_ reservation: CeilingReservation) async throws

    /// - Returns: true for the single caller that sets the day's `warned` flag.
    /// - Throws: `StoreError`.
    func claimWarning(day: String) async throws -> Bool
}
