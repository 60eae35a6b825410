/// The instant by which a piece of work must be finished (a Lambda invocation's deadline, less a margin).
///
/// Monotonic (`ContinuousClock`), so a wall-clock step cannot stretch or shrink it. Outbound calls take one
/// and never wait past it: attempt timeouts are capped by `remaining`, and no retry sleeps beyond it.
public struct Deadline: Sendable, Hashable, Comparable {
    public let instant: ContinuousClock.Instant

    public init(_ instant: ContinuousClock.Instant) { self.instant = instant }

    /// `duration` from now.
    public static func after(_ duration: Duration) -> Deadline { Deadline(.now + duration) }

    /// Time left; zero or negative once passed.
    public var remaining: Duration { instant - .now }

    public static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.instant < rhs.instant }
}
