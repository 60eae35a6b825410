/// A set of HTTP error statuses (400...599), as a route's `releaseStatuses` holds them: 200 bits, no hashing.
///
/// Why not `Set<Int>`: every route is built at cold start, and the first `Set<Int>` makes the Swift runtime
/// look up `Int: Hashable` by scanning every conformance record of the binary (~0.1 ms before the first
/// `/next`; docs/performance.md). A bitmap also answers `contains` with one shift.
package struct StatusSet: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The statuses a set can hold.
    package static let range = 400...599

    private var low: UInt64 = 0  // 400...463
    private var middle: UInt64 = 0  // 464...527
    private var high: UInt64 = 0  // 528...591
    private var top: UInt64 = 0  // 592...599

    /// - Precondition: every status is in `StatusSet.range` (the configuration checks before building one).
    package init(_ statuses: [Int]) {
        for status in statuses {
            precondition(Self.range.contains(status), "status \(status) outside 400...599")
            let offset = status - Self.range.lowerBound
            let bit = UInt64(1) << UInt64(offset % 64)
            switch offset / 64 {
            case 0: low |= bit
            case 1: middle |= bit
            case 2: high |= bit
            default: top |= bit
            }
        }
    }

    package init(arrayLiteral statuses: Int...) {
        self.init(statuses)
    }

    package func contains(_ status: Int) -> Bool {
        guard Self.range.contains(status) else { return false }
        let offset = status - Self.range.lowerBound
        let word: UInt64
        switch offset / 64 {
        case 0: word = low
        case 1: word = middle
        case 2: word = high
        default: word = top
        }
        return word & (UInt64(1) << UInt64(offset % 64)) != 0
    }

    /// The statuses in ascending order.
    package func sorted() -> [Int] {
        Self.range.filter(contains)
    }
}
