public import FoundationEssentials

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

    /// The monotonic deadline matching a wall-clock one (Lambda's `Lambda-Runtime-Deadline-Ms`), less `margin`
    /// for answering in time. Pure apart from reading the monotonic clock once.
    /// - Parameters:
    ///   - wallClockDeadline: when the work must be finished.
    ///   - now: the current wall-clock time (from a `WallClock`).
    ///   - margin: time kept back, e.g. to post the response.
    public static func matching(_ wallClockDeadline: Date, now: Date, margin: Duration = .zero) -> Deadline {
        let seconds = wallClockDeadline.timeIntervalSince(now)
        return .after(.milliseconds(Int64((seconds * 1000).rounded(.down))) - margin)
    }
}
