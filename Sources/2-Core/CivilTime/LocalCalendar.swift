package import FoundationEssentials

/// Calendar days in one time zone: which day an instant falls on, and how long until the next one.
///
/// Allowances reset on the guest's local day (`BUDGET_TIMEZONE`), the AI-call ceiling on the
/// environment's day, and Google's decode quota on the Pacific-time day.
package struct LocalCalendar: Sendable, Hashable {
    package let rule: TimeZoneRule

    /// - Throws: `TimeZoneRule.ParseError` for a name that is neither an IANA zone nor a POSIX TZ string.
    package init(zone: String) throws(TimeZoneRule.ParseError) {
        rule = try TimeZoneRule(zone: zone)
    }

    package init(rule: TimeZoneRule) { self.rule = rule }

    package static let utc = LocalCalendar(rule: try! TimeZoneRule(posix: "UTC0"))

    /// The local calendar date at `instant`.
    package func day(at instant: Date) -> CivilDate {
        let seconds = Self.unixSeconds(instant)
        let local = seconds + Int64(rule.offset(atUnixSeconds: seconds))
        return CivilDate(daysSinceEpoch: TimeZoneRule.floorDiv(local, 86_400))
    }

    /// Whole seconds from `instant` until the next local day begins (at least 1), for `Retry-After`.
    ///
    /// Found by bisection on `day(at:)`, not by converting midnight with an offset: where the clocks go
    /// back at local midnight (Cairo, Santiago, Beirut, …) the day begins at the second midnight, an hour
    /// after the first, and where they go forward at midnight it begins at 01:00.
    package func secondsUntilNextDay(after instant: Date) -> Int {
        let seconds = Self.unixSeconds(instant)
        let nextDay = dayNumber(atUnixSeconds: seconds) + 1
        // Local days are at most 27 hours long (a whole-day jump aside): the next one has begun by then.
        var low = seconds + 1
        var high = seconds + 3 * 86_400
        while low < high {
            let middle = low + (high - low) / 2
            if dayNumber(atUnixSeconds: middle) >= nextDay { high = middle } else { low = middle + 1 }
        }
        return Int(max(1, low - seconds))
    }

    private func dayNumber(atUnixSeconds seconds: Int64) -> Int64 {
        TimeZoneRule.floorDiv(seconds + Int64(rule.offset(atUnixSeconds: seconds)), 86_400)
    }

    static func unixSeconds(_ instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970).rounded(.down))
    }
}
