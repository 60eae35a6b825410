internal import CivilTime
package import FoundationEssentials

/// Whether a physical device already had a free tier, as its DeviceCheck bits say.
package enum DeviceMark: String, Sendable, Hashable {
    /// No mark, or one old enough to count as cleared: this device's first free tier.
    case first
    /// A mark still in force: another device ID on a device that already had one (or was flagged).
    case `repeat`
}

/// Reads a device's two bits as a mark (docs/appattest.md, "Device marks": bit 0 = a free tier was given on
/// this device, bit 1 = the device was flagged by App Attest's fraud-risk metric).
///
/// Apple keeps one update month for both bits, so both expire together: a mark counts as cleared once
/// more than `markMonths` whole calendar months lie between its month and `now`'s (UTC), which
/// guarantees at least `markMonths` months have passed whatever day of its month it was set. A mark set
/// in 2026-09 with `markMonths` 3 still holds in 2026-12 and is cleared from 2027-01-01. A month after
/// `now` (a clock or Apple skew) is a mark in force.
package enum DeviceMarkPolicy {
    /// The default number of months (not a setting yet; docs/playintegrity.md): a second-hand phone gets a
    /// free tier again.
    package static let defaultMonths = 3

    package static func mark(_ state: TwoBitsState, now: Date, markMonths: Int) -> DeviceMark {
        guard case .bits(let bits) = state, bits.bit0 || bits.bit1 else { return .first }
        let today = LocalCalendar.utc.day(at: now)
        let elapsed = (today.year * 12 + today.month - 1) - bits.lastUpdate.ordinal
        return elapsed > max(0, markMonths) ? .first : .repeat
    }

    /// The UTC month of `now`: the month Apple stamps on a bit written at `now`, kept with a `first` a mark
    /// made (`tier_marked`, docs/gate.md "Device tiers").
    package static func month(at now: Date) -> BitsMonth {
        let today = LocalCalendar.utc.day(at: now)
        // A calendar day always has a month in 1...12 and a four-digit year.
        return BitsMonth(year: today.year, month: today.month)!
    }

    /// Whether a mark written in `month` has expired at `now`, by the same rule as `mark(_:now:markMonths:)`:
    /// a `first` expires with the mark that made it (docs/appattest.md "Device marks").
    package static func expired(_ month: BitsMonth, now: Date, markMonths: Int) -> Bool {
        mark(.bits(DeviceBits(bit0: true, bit1: false, lastUpdate: month)), now: now, markMonths: markMonths) == .first
    }
}
