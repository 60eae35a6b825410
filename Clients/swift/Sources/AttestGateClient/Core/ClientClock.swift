#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The client's time: now (challenge expiry) and waiting (retries). Tests move and record it.
public protocol ClientClock: Sendable {
    /// Seconds since 1970-01-01 UTC.
    func unixSeconds() -> Double
    /// Waits `seconds`; throws when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// The system clock and `Task.sleep`.
public struct SystemClientClock: ClientClock {
    public init() {}

    public func unixSeconds() -> Double { Date().timeIntervalSince1970 }

    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 3600) * 1_000_000_000))
    }
}
