internal import Synchronization

/// The raise an instance last saw on its ceiling rows, for one day: its next reservations assume it, so a raised
/// day costs one refused write per instance, not one per call (`CeilingRaise`).
final class RaiseMemory: Sendable {
    private let seen = Mutex<(day: String, raise: CeilingRaise?)?>(nil)

    /// The raise last seen for `day`; nil when none was seen (or it was another day).
    func assumed(day: String) -> CeilingRaise? {
        seen.withLock { $0?.day == day ? $0?.raise : nil }
    }

    func remember(_ raise: CeilingRaise?, day: String) {
        seen.withLock { $0 = (day, raise) }
    }
}
