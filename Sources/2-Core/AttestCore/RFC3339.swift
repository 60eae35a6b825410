internal import CivilTime

/// RFC 3339 timestamps in UTC with milliseconds (`2026-12-06T07:19:35.123Z`), as Lambda's log-level filtering
/// and Logs Insights read them: the day from `CivilDate`, the time of day by arithmetic, no formatter.
package enum RFC3339 {
    package static func utc(millis: Int64) -> String {
        let days = millis >= 0 ? millis / 86_400_000 : (millis - 86_399_999) / 86_400_000
        let inDay = millis - days * 86_400_000
        let date = CivilDate(daysSinceEpoch: days)
        var out = ""
        out.reserveCapacity(24)
        out += pad(Int64(date.year), 4) + "-" + pad(Int64(date.month), 2) + "-" + pad(Int64(date.day), 2)
        out += "T" + pad(inDay / 3_600_000, 2) + ":" + pad(inDay / 60_000 % 60, 2) + ":" + pad(inDay / 1000 % 60, 2)
        out += "." + pad(inDay % 1000, 3) + "Z"
        return out
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
