/// A day's ceiling raised by an operator (`attestgate ceiling raise`; docs/operations.md, "Live controls"): the
/// day's call and money limits in place of the configured ones, written on every shard row of the day as
/// `raise` = `"<calls>/<micros>"`.
///
/// Each reservation's condition names the raise it assumed (`raise = :r`, or none), so a call judged against a
/// stale limit is refused by the row itself and tried again against the raise it found: a raise applies from
/// the next call, in both directions, with no request of its own.
package struct CeilingRaise: Sendable, Hashable {
    /// Calls for the day; 0: no call ceiling.
    package let calls: Int64
    /// Micro-dollars for the day; 0: no money ceiling.
    package let micros: Int64

    package init(calls: Int64, micros: Int64) {
        self.calls = calls
        self.micros = micros
    }

    /// The row attribute's value.
    package var attribute: String { "\(calls)/\(micros)" }

    /// Reads a row's `raise`; nil for anything but two non-negative integers of at most 18 digits.
    package init?(attribute: String) {
        let parts = attribute.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard parts.count == 2, let calls = Self.number(parts[0]), let micros = Self.number(parts[1]) else {
            return nil
        }
        self.init(calls: calls, micros: micros)
    }

    private static func number(_ digits: Substring.UTF8View.SubSequence) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
    }
}
