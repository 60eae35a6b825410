/// RFC 3339 timestamps in UTC with milliseconds (`2026-12-06T07:19:35.123Z`), as Lambda's log-level filtering
/// and Logs Insights read them. Pure arithmetic on the proleptic Gregorian calendar, no formatter.
package enum RFC3339 {
    package static func utc(millis: Int64) -> String {
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let inDay = millis - days * 86_400_000
        let (year, month, day) = civil(days: days)
        var out = ""
        out.reserveCapacity(24)
        out += pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(inDay / 3_600_000, 2) + ":" + pad(inDay / 60_000 % 60, 2) + ":" + pad(inDay / 1000 % 60, 2)
        out += "." + pad(inDay % 1000, 3) + "Z"
        return out
    }

    /// The civil date of a day count since 1970-01-01 (the days-from-civil inverse, by eras of 400 years).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
