internal import AttestCore
package import CivilTime
package import FoundationEssentials

/// How many metered calls a subject may make per day on one feature (by default a free
/// guest makes at most 14 metered calls on its first day and 9 on any later day: docs/api.md §5).
package struct AllowancePolicy: Sendable, Hashable {
    package let firstDay: Int
    package let laterDays: Int

    package init(firstDay: Int, laterDays: Int) {
        self.firstDay = firstDay
        self.laterDays = laterDays
    }

    package static let seedDefault = AllowancePolicy(firstDay: 14, laterDays: 9)

    /// The limit for `today`, given the day the subject was first seen.
    package func limit(today: String, firstSeen: String) -> Int { today == firstSeen ? firstDay : laterDays }
}

/// Layer 2: takes one unit of the subject's allowance for today, or says when the next day starts.
package struct AllowanceMeter: Sendable {
    package enum Outcome: Sendable, Hashable {
        case reserved(AllowanceReservation)
        /// Used up; `retryAfter` seconds until the next local day.
        case exhausted(retryAfter: Int)
    }

    let store: any AllowanceStore
    let calendar: LocalCalendar

    package init(store: any AllowanceStore, calendar: LocalCalendar) {
        self.store = store
        self.calendar = calendar
    }

    /// The day key for `now` in the budget time zone.
    package func day(at now: Date) -> String { calendar.day(at: now).iso }

    /// - Parameter firstSeen: the subject's first-seen day (today for a subject never seen before).
    /// - Throws: `StoreError` (the caller fails closed with `503 unavailable`).
    package func reserve(
        subject: Subject,
        feature: String,
        policy: AllowancePolicy,
        firstSeen: String,
        now: Date
    ) async throws -> Outcome {
        let today = day(at: now)
        let limit = policy.limit(today: today, firstSeen: firstSeen)
        guard limit > 0,
            let reservation = try await store.reserve(subject: subject, feature: feature, day: today, limit: limit)
        else { return .exhausted(retryAfter: calendar.secondsUntilNextDay(after: now)) }
        return .reserved(reservation)
    }
}
