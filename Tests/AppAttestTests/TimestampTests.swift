import AppAttest
import FoundationEssentials
import Testing

/// `Timestamp.parse`: receipt fields and `attestgate verify-attestation --at` (ISO 8601 with `Z` or a
/// numeric offset, with or without fractional seconds).
struct TimestampTests {
    static let instant = Date(timeIntervalSince1970: 1_796_111_621)  // 2026-12-01T07:53:41Z

    @Test(arguments: [
        "2026-12-01T07:53:41Z",
        "2026-12-01T07:53:41+00:00",  // what `date -Iseconds` prints
        "2026-12-01T07:53:41-00:00",
        "2026-12-01T07:53:41+0000",
        "2026-12-01T16:53:41+09:00",
        "2026-12-01T02:23:41-05:30",
        "2026-11-30T23:53:41-0800",
    ])
    func everySpellingOfOneInstantIsTheSameDate(_ text: String) {
        #expect(Timestamp.parse(text) == Self.instant, "\(text)")
    }

    @Test func fractionsWithZAndWithAnOffset() throws {
        let zulu = try #require(Timestamp.parse("2026-12-01T07:53:41.250Z"))
        let offset = try #require(Timestamp.parse("2026-12-01T08:53:41.250+01:00"))
        #expect(zulu == offset)
        #expect(abs(zulu.timeIntervalSince(Self.instant) - 0.25) < 1e-6)
        let long = try #require(Timestamp.parse("2026-12-01T07:53:41.9999999999999999999Z"))
        #expect(long.timeIntervalSince(Self.instant) < 1.000_001)
    }

    @Test(arguments: [
        "2026-12-01T07:53:41", "2026-12-01T07:53:41+00", "2026-12-01T07:53:41+24:00", "2026-12-01T07:53:41+00:60",
        "2026-12-01T07:53:41 00:00", "2026-12-01T07:53:41.+00:00", "2026-12-01T07:53:41.Z", "2026-12-01T07:53:41+0a:00",
        "2026-12-01T07:53:41+00:00Z", "2026-12-01 07:53:41Z", "2026-13-01T07:53:41Z", "yesterday",
        "2026-12-01T07:53:41.1234567890123456789012+00:00",
        // Dates that do not exist are refused, never moved into the next month.
        "2023-02-29T00:00:00Z", "2024-02-30T12:00:00Z", "2024-04-31T00:00:00+05:30", "2100-02-29T00:00:00Z",
        "2026-06-31T00:00:00Z", "2026-12-00T00:00:00Z",
    ])
    func malformedIsNil(_ text: String) {
        #expect(Timestamp.parse(text) == nil, "\(text)")
    }

    @Test func leapDaysThatExistParse() throws {
        let leap = try #require(Timestamp.parse("2024-02-29T00:00:00Z"))
        #expect(Timestamp.format(leap) == "2024-02-29T00:00:00Z")
        #expect(Timestamp.parse("2000-02-29T23:59:59Z") != nil)
        #expect(Timestamp.parse("2026-01-31T00:00:00Z") != nil)
    }
}
