public import FoundationEssentials

/// Where "now" comes from. Domain code never reads the system clock itself: it is handed a clock
/// (or a `Date`) so that tests can pin time, e.g. to verify an App Attest capture whose leaf expired.
public protocol WallClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that always answers the same instant (tests, the CLI's `--at`).
public struct FixedClock: WallClock {
    public let instant: Date
    public init(_ instant: Date) { self.instant = instant }
    public func now() -> Date { instant }
}

/// A source of unpredictable bytes (challenges, own-write tokens). Tests may supply a fake.
public protocol RandomSource: Sendable {
    /// Returns `count` random bytes.
    func bytes(_ count: Int) -> [UInt8]
}
