package import AttestCore
package import CivilTime
package import FoundationEssentials

/// Layer 3: the environment-wide daily ceiling on AI calls nobody paid for (docs/gate.md).
///
/// Counted in calls, before the call, so the bill has a hard cap even when layers 1 and 2 are beaten.
/// Paid pools are never counted (free IDs cost nothing to mint, so counting paid calls would let them
/// lock paying users out). A store failure fails closed.
package struct SpendGuard: Sendable {
    package enum Outcome: Sendable, Hashable {
        /// No ceiling applies (paid pool, or `AI_DAILY_CALL_BUDGET=0`).
        case notMetered
        /// One unit taken; `warningClaimed` is true on the single call per day that crossed 80 %.
        case reserved(CeilingReservation, warningClaimed: Bool)
        /// The day's ceiling is spent; `retryAfter` seconds until the next day.
        case exhausted(retryAfter: Int)
    }

    let store: any CeilingStore
    /// Calls per day; 0 means no ceiling.
    package let dailyLimit: Int
    let calendar: LocalCalendar

    package init(store: any CeilingStore, dailyLimit: Int, calendar: LocalCalendar) {
        self.store = store
        self.dailyLimit = dailyLimit
        self.calendar = calendar
    }

    /// The warning threshold: 80 % of the limit, at least one call.
    package var warningThreshold: Int { max(1, dailyLimit * 8 / 10) }

    /// - Throws: `StoreError` when the unit cannot be taken (fail closed: `503 unavailable`); never for
    ///   the warning claim.
    package func reserve(paid: Bool, now: Date) async throws -> Outcome {
        guard dailyLimit > 0, !paid else { return .notMetered }
        let day = calendar.day(at: now).iso
        guard let reservation = try await store.reserve(day: day, limit: dailyLimit) else {
            return .exhausted(retryAfter: calendar.secondsUntilNextDay(after: now))
        }
        // Only the request that wins the conditional write on `warned` logs the day's warning; the count
        // can fall as units are released, so "exactly 80 %" would fire again and again. A failed claim
        // never fails the call, whose units are already taken: `warned` stays unset, so the next call
        // past the threshold claims it.
        var claimed = false
        if reservation.used >= warningThreshold, !reservation.warned {
            claimed = (try? await store.claimWarning(day: day)) ?? false
        }
        return .reserved(reservation, warningClaimed: claimed)
    }

    /// Gives a unit back when the provider never answered (it was not billed).
    /// - Throws: `StoreError`.
    package func release(_ reservation: CeilingReservation) async throws {
        try await store.release(reservation)
    }
}
