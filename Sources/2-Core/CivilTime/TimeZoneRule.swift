/// A time zone's current rule as a POSIX TZ string (`std offset [dst [offset] [,start[/time],end[/time]]]`,
/// POSIX.1-2017 section 8.3 with the RFC 8536 extensions: hours up to 167 and negative transition times).
///
/// Lambda images may not carry `/usr/share/zoneinfo`, so quota and ceiling days are computed from the
/// rule strings in `ianaZones` (generated from tzdata) instead. Only the current rule is known, which is
/// all a "which day is it now" question needs.
package struct TimeZoneRule: Sendable, Hashable {
    /// Seconds east of UTC in standard time.
    package let standardOffset: Int
    /// Seconds east of UTC in daylight time, and the two transitions; nil when the zone has no DST.
    package let daylight: Daylight?

    package struct Daylight: Sendable, Hashable {
        package let offset: Int
        package let start: Transition
        package let end: Transition
    }

    /// A transition date rule plus the local time of day (seconds) it happens at.
    package struct Transition: Sendable, Hashable {
        package enum Day: Sendable, Hashable {
            /// `Jn`: day 1...365, February 29 never counted.
            case julianNoLeap(Int)
            /// `n`: day 0...365, February 29 counted in leap years.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }
        package let day: Day
        package let time: Int
    }

    package struct ParseError: Error, Hashable {
        package let rule: String
    }

    /// The rule for an IANA zone name (`Asia/Tokyo`) or a literal POSIX TZ string (`JST-9`).
    package init(zone: String) throws(ParseError) {
        try self.init(posix: Self.ianaZones[zone] ?? zone)
    }

    /// Parses a POSIX TZ string.
    package init(posix: String) throws(ParseError) {
        var scanner = Scanner(Array(posix.utf8))
        guard scanner.skipName(), let std = scanner.offset() else { throw ParseError(rule: posix) }
        standardOffset = -std
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.skipName() else { throw ParseError(rule: posix) }
        var dst = standardOffset + 3600
        if !scanner.peek(UInt8(ascii: ",")) {
            guard let value = scanner.offset() else { throw ParseError(rule: posix) }
            dst = -value
        }
        guard scanner.consume(UInt8(ascii: ",")), let start = scanner.transition(),
            scanner.consume(UInt8(ascii: ",")), let end = scanner.transition(), scanner.atEnd
        else { throw ParseError(rule: posix) }
        daylight = Daylight(offset: dst, start: start, end: end)
    }

    /// Seconds east of UTC in force at `unixSeconds`.
    package func offset(atUnixSeconds unixSeconds: Int64) -> Int {
        guard let daylight else { return standardOffset }
        let year = CivilDate(daysSinceEpoch: Self.floorDiv(unixSeconds + Int64(standardOffset), 86_400)).year
        // The start is given in standard local time, the end in daylight local time.
        let start = daylight.start.unixSeconds(year: year) - Int64(standardOffset)
        let end = daylight.end.unixSeconds(year: year) - Int64(daylight.offset)
        let inDaylight =
            start < end ? (start <= unixSeconds && unixSeconds < end) : !(end <= unixSeconds && unixSeconds < start)
        return inDaylight ? daylight.offset : standardOffset
    }

    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
}

extension TimeZoneRule.Transition {
    /// The transition's instant in `year`, as seconds since the epoch measured in local wall time.
    func unixSeconds(year: Int) -> Int64 {
        let january1 = CivilDate(year: year, month: 1, day: 1).daysSinceEpoch
        let days: Int64
        switch day {
        case .julianNoLeap(let n):
            let leapShift = CivilDate.isLeap(year) && n >= 60 ? 1 : 0
            days = january1 + Int64(n - 1 + leapShift)
        case .zeroBased(let n):
            days = january1 + Int64(n)
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate(year: year, month: month, day: 1).daysSinceEpoch
            // 1970-01-01 was a Thursday (weekday 4).
            let firstWeekday = Int((first + 4) % 7 + 7) % 7
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilDate.daysIn(month: month, year: year)
            while dayOfMonth > length { dayOfMonth -= 7 }
            days = first + Int64(dayOfMonth - 1)
        }
        return days * 86_400 + Int64(time)
    }
}

/// Reads the parts of a POSIX TZ string.
private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek(byte) else { return false }
        index += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<...>` quoted (may hold digits and signs).
    mutating func skipName() -> Bool {
        if consume(UInt8(ascii: "<")) {
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: ">") { index += 1 }
            guard index - start >= 3, consume(UInt8(ascii: ">")) else { return false }
            return true
        }
        let start = index
        while index < bytes.count, isLetter(bytes[index]) { index += 1 }
        return index - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, sign as written (POSIX offsets are west-positive).
    mutating func offset() -> Int? {
        var sign = 1
        if consume(UInt8(ascii: "-")) { sign = -1 } else { _ = consume(UInt8(ascii: "+")) }
        guard let value = clock(maxHours: 167) else { return nil }
        return sign * value
    }

    mutating func transition() -> TimeZoneRule.Transition? {
        let day: TimeZoneRule.Transition.Day
        if consume(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), consume(UInt8(ascii: ".")),
                let week = number(), (1...5).contains(week), consume(UInt8(ascii: ".")),
                let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else if consume(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(n)
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var time = 7200
        if consume(UInt8(ascii: "/")) {
            guard let value = offset() else { return nil }
            time = value
        }
        return .init(day: day, time: time)
    }

    private mutating func clock(maxHours: Int) -> Int? {
        guard let hours = number(), hours <= maxHours else { return nil }
        var seconds = hours * 3600
        if consume(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if consume(UInt8(ascii: ":")) {
                guard let secs = number(), secs < 60 else { return nil }
                seconds += secs
            }
        }
        return seconds
    }

    private mutating func number() -> Int? {
        let start = index
        var value = 0
        while index < bytes.count, index - start < 3, bytes[index] >= UInt8(ascii: "0"),
            bytes[index] <= UInt8(ascii: "9")
        {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        return index > start ? value : nil
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }
}
