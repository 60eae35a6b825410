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

    /// Whole seconds from `instant` until the next local midnight (at least 1), for `Retry-After`.
    package func secondsUntilNextDay(after instant: Date) -> Int {
        let seconds = Self.unixSeconds(instant)
        let nextDay = day(at: instant).daysSinceEpoch + 1
        // Local midnight converted with the offset now, then with the offset in force just before it.
        let guess = nextDay * 86_400 - Int64(rule.offset(atUnixSeconds: seconds))
        let midnight = nextDay * 86_400 - Int64(rule.offset(atUnixSeconds: guess - 1))
        return Int(max(1, midnight - seconds))
    }

    static func unixSeconds(_ instant: Date) -> Int64 {
        Int64((instant.timeIntervalSince1970).rounded(.down))
    }
}
