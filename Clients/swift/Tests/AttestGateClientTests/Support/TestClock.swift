import Foundation

@testable import AttestGateClient

/// A clock that starts at a fixed time and never waits: `sleep` records the delay and moves time on.
final class TestClock: ClientClock, @unchecked Sendable {
    // @unchecked: every access to the state holds `lock`.
    private let lock = NSLock()
    private var now: Double
    private var slept: [Double] = []

    init(now: Double = 1_800_000_000) { self.now = now }

    func unixSeconds() -> Double { lock.withLock { now } }

    func sleep(seconds: Double) async throws {
        lock.withLock {
            slept.append(seconds)
            now += seconds
        }
        await Task.yield()
    }

    func advance(_ seconds: Double) { lock.withLock { now += seconds } }

    /// The delays slept so far.
    var sleeps: [Double] { lock.withLock { slept } }
}

/// Events a client reported, in order.
final class EventLog: @unchecked Sendable {
    // @unchecked: every access to `events` holds `lock`.
    private let lock = NSLock()
    private var recorded: [ClientEvent] = []

    var handler: @Sendable (ClientEvent) -> Void { { [self] event in lock.withLock { recorded.append(event) } } }
    var events: [ClientEvent] { lock.withLock { recorded } }
}
