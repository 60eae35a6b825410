internal import AttestCore
package import FoundationEssentials
internal import Synchronization

/// A wall clock a test moves by hand: real time (or a fixed instant) plus an offset the test advances,
/// e.g. past a challenge's expiry while its row is still in the table.
///
/// Ticking (the default) keeps JWTs for the fake Google near real time; fixed never moves on its own.
package final class TestClock: WallClock {
    private let state: Mutex<(fixed: Date?, offset: TimeInterval)>

    /// - Parameter fixed: a fixed instant; nil follows the real time.
    package init(fixed: Date? = nil) { state = Mutex((fixed, 0)) }

    package func now() -> Date {
        let (fixed, offset) = state.withLock { ($0.fixed, $0.offset) }
        return (fixed ?? Date()).addingTimeInterval(offset)
    }

    /// Moves the clock forward by `seconds`.
    package func advance(by seconds: TimeInterval) { state.withLock { $0.offset += seconds } }
}
