package import FoundationEssentials
internal import Glibc

/// The two UTC renderings of a signing instant that SigV4 uses.
///
/// Built with `gmtime_r` rather than `DateFormatter`, which would pull in ICU and depend on the locale.
package struct AmzDate: Sendable, Hashable {
    /// `YYYYMMDD'T'HHMMSS'Z'`, the `X-Amz-Date` header value.
    package let timestamp: String
    /// `YYYYMMDD`, the first component of the credential scope.
    package let day: String

    /// - Parameter date: the signing instant; sub-second parts are truncated.
    package init(_ date: Date) {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var fields = tm()
        gmtime_r(&seconds, &fields)
        let day =
            Self.pad(Int(fields.tm_year) + 1900, 4) + Self.pad(Int(fields.tm_mon) + 1, 2)
            + Self.pad(Int(fields.tm_mday), 2)
        self.day = day
        self.timestamp =
            day + "T" + Self.pad(Int(fields.tm_hour), 2) + Self.pad(Int(fields.tm_min), 2)
            + Self.pad(Int(fields.tm_sec), 2) + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
