package import FoundationEssentials

/// RFC 3339 / ISO 8601 extended timestamps (`2024-04-18T16:14:54Z`, `2020-11-27T22:41:40.46Z`,
/// `2026-12-01T07:53:41+00:00` as `date -Iseconds` prints) without formatters or locales: receipt fields
/// and the CLI's `--at`.
package enum Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`; nil for anything else. The offset is
    /// subtracted, so every accepted spelling of one instant gives the same `Date`.
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard !range.isEmpty else { return nil }
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day), hour < 24,
            minute < 60, second < 61,
            let (offsetStart, offsetSeconds) = offset(bytes, number: number), offsetStart >= 19
        else { return nil }
        var fraction = 0.0
        if offsetStart > 19 {
            // Digit by digit: up to 19 digits would overflow an Int.
            guard bytes[19] == UInt8(ascii: "."), offsetStart > 20 else { return nil }
            var scale = 1.0
            for index in 20..<offsetStart {
                guard let digit = number(index..<index + 1) else { return nil }
                scale /= 10
                fraction += Double(digit) * scale
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Where the zone designator starts and its offset east of UTC in seconds: `Z`, `±HH:MM` or `±HHMM`
    /// (hours below 24, minutes below 60).
    private static func offset(_ bytes: [UInt8], number: (Range<Int>) -> Int?) -> (Int, Int)? {
        let end = bytes.count
        if bytes[end - 1] == UInt8(ascii: "Z") { return (end - 1, 0) }
        let extended = bytes[end - 3] == UInt8(ascii: ":")
        let signIndex = end - (extended ? 6 : 5)
        guard let hours = number(signIndex + 1..<signIndex + 3),
            let minutes = number(end - 2..<end), hours < 24, minutes < 60
        else { return nil }
        switch bytes[signIndex] {
        case UInt8(ascii: "+"): return (signIndex, hours * 3_600 + minutes * 60)
        case UInt8(ascii: "-"): return (signIndex, -(hours * 3_600 + minutes * 60))
        default: return nil
        }
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds).
    package static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let rest = total - days * 86_400
        let (year, month, day) = civilFromDays(days)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))Z"
    }

    /// 28 to 31 (February 29 in leap years of the proleptic Gregorian calendar): a date that does not
    /// exist is refused, never moved into the next month.
    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian calendar).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
