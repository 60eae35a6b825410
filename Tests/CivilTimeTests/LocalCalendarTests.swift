import FoundationEssentials
import TestSupport
import Testing

@testable import CivilTime

@Suite struct LocalCalendarTests {
    struct Case: Decodable, Sendable {
        let zone: String
        let unix: Int64
        let offset: Int
        let day: String
    }

    static let cases: [Case] = {
        struct File: Decodable { let cases: [Case] }
        let data = Data(try! Fixture.bytes("zone-cases.json"))
        return try! JSONDecoder().decode(File.self, from: data).cases
    }()

    @Test func offsetsAndDaysMatchPythonZoneinfoAcrossTransitions() throws {
        #expect(Self.cases.count > 500)
        for item in Self.cases {
            let calendar = try LocalCalendar(zone: item.zone)
            #expect(calendar.rule.offset(atUnixSeconds: item.unix) == item.offset, "\(item.zone) @ \(item.unix)")
            #expect(calendar.day(at: Date(timeIntervalSince1970: Double(item.unix))).iso == item.day)
        }
    }

    @Test func pacificDayTurnsAtLocalMidnightNotUTC() throws {
        let pacific = try LocalCalendar(zone: "America/Los_Angeles")
        // 2026-11-30T07:59:59Z is 23:59:59 PST on 2026-11-29.
        let before = Date(timeIntervalSince1970: 1_796_025_599)
        #expect(pacific.day(at: before).iso == "2026-11-29")
        #expect(pacific.secondsUntilNextDay(after: before) == 1)
        #expect(pacific.day(at: before.addingTimeInterval(1)).iso == "2026-11-30")
        #expect(pacific.secondsUntilNextDay(after: before.addingTimeInterval(1)) == 86_400)
    }

    @Test func secondsUntilNextDaySpansAShortDSTDay() throws {
        let pacific = try LocalCalendar(zone: "America/Los_Angeles")
        // 2026-03-08 00:00 PST = 08:00Z; that local day is 23 hours long.
        #expect(pacific.secondsUntilNextDay(after: Date(timeIntervalSince1970: 1_772_956_800)) == 23 * 3600)
    }

    /// Zones whose clocks change at local midnight: the next day begins at the second midnight when they
    /// go back, at 01:00 when they go forward (seconds from Python's zoneinfo, 2026 rules).
    @Test(
        arguments: [
            ("Africa/Cairo", 1_793_307_590, 3_610),  // 23:59:50 EEST; back to 23:00 EET at 24:00
            ("Africa/Cairo", 1_776_978_000, 3_600),  // 23:00 EET; forward to 01:00 EEST at 24:00
            ("America/Santiago", 1_775_356_200, 5_400),
            ("America/Santiago", 1_788_665_400, 1_800),
            ("Asia/Beirut", 1_792_873_800, 5_400),
            ("America/Nuuk", 1_792_881_000, 12_600),
        ] as [(String, Int64, Int)]
    )
    func secondsUntilNextDayWhereTheClocksChangeAtMidnight(_ zone: String, _ unix: Int64, _ expected: Int) throws {
        let calendar = try LocalCalendar(zone: zone)
        let instant = Date(timeIntervalSince1970: Double(unix))
        #expect(calendar.secondsUntilNextDay(after: instant) == expected)
        // One second before the answer it is still the same day; at the answer it is the next one.
        let next = instant.addingTimeInterval(Double(expected))
        #expect(calendar.day(at: next.addingTimeInterval(-1)) == calendar.day(at: instant))
        #expect(calendar.day(at: next).daysSinceEpoch == calendar.day(at: instant).daysSinceEpoch + 1)
    }

    @Test func acceptsLiteralPosixRulesAndRejectsGarbage() throws {
        #expect(try TimeZoneRule(zone: "JST-9").standardOffset == 9 * 3600)
        #expect(try TimeZoneRule(zone: "<+0545>-5:45").standardOffset == 5 * 3600 + 45 * 60)
        #expect(throws: TimeZoneRule.ParseError.self) { try TimeZoneRule(zone: "Mars/Olympus") }
        #expect(throws: TimeZoneRule.ParseError.self) { try TimeZoneRule(zone: "PST8PDT,M13.1.0,M11.1.0") }
        #expect(throws: TimeZoneRule.ParseError.self) { try TimeZoneRule(zone: "") }
    }

    @Test func civilDateRoundTripsAcrossCenturies() {
        for days: Int64 in [-719_468, -1, 0, 1, 11_016, 20_000, 2_932_896] {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
        }
        #expect(CivilDate(daysSinceEpoch: 0).iso == "1970-01-01")
        #expect(CivilDate(year: 2000, month: 2, day: 29).daysSinceEpoch == 11_016)
    }
}
