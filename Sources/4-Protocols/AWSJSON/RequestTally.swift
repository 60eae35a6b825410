internal import Synchronization

/// Counts the AWS requests made on behalf of one piece of work (a metered call), and how many of them
/// ran one after another, so the decision line can report the store cost of every call.
///
/// Set it with `RequestTally.$current.withValue(tally) { ... }`; every `AWSJSONClient.call` made inside,
/// in child tasks too, records its interval and attempts. `sequential` is the number of waves: calls
/// whose intervals overlap count as one step of latency.
package final class RequestTally: Sendable {
    @TaskLocal package static var current: RequestTally?

    private struct Call {
        let start: ContinuousClock.Instant
        let end: ContinuousClock.Instant
        let attempts: Int
    }

    private let calls = Mutex<[Call]>([])

    package init() {}

    func record(start: ContinuousClock.Instant, end: ContinuousClock.Instant, attempts: Int) {
        calls.withLock { $0.append(Call(start: start, end: end, attempts: attempts)) }
    }

    /// HTTP requests sent (every attempt counts, retries and resends included).
    package var requests: Int { calls.withLock { $0.reduce(0) { $0 + $1.attempts } } }

    /// Calls that could not overlap: the number of groups of calls whose intervals overlap.
    package var sequential: Int {
        let sorted = calls.withLock { $0 }.sorted { $0.start < $1.start }
        var waves = 0
        var waveEnd: ContinuousClock.Instant?
        for call in sorted {
            if let end = waveEnd, call.start < end {
                waveEnd = max(end, call.end)
            } else {
                waves += 1
                waveEnd = call.end
            }
        }
        return waves
    }

    /// Microseconds with at least one call in flight (the union of their intervals): the time the work
    /// waited for the store, so the decision line separates the store's round trips from our own time.
    package var waitedMicros: Int64 {
        let sorted = calls.withLock { $0 }.sorted { $0.start < $1.start }
        var total = Duration.zero
        var wave: (start: ContinuousClock.Instant, end: ContinuousClock.Instant)?
        for call in sorted {
            if let current = wave, call.start < current.end {
                wave = (current.start, max(current.end, call.end))
            } else {
                if let current = wave { total += current.start.duration(to: current.end) }
                wave = (call.start, call.end)
            }
        }
        if let current = wave { total += current.start.duration(to: current.end) }
        let (seconds, attoseconds) = total.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
