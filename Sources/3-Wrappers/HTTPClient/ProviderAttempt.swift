package import AttestCore

/// The time one provider call gets, from one source: the invocation's deadline (`Deadline.current`, or the one
/// a caller holds), at most the client's own timeout, and never a call with less than `minimum` left (it could
/// only time out after costing a budget unit).
package enum ProviderAttempt {
    /// The least time a provider call is started with.
    package static let minimum: Duration = .milliseconds(100)

    /// The call's timeout; nil when less than `minimum` is left.
    package static func timeout(atMost cap: Duration, deadline: Deadline? = nil) -> Duration? {
        let left = (deadline ?? Deadline.current)?.remaining ?? cap
        let timeout = min(cap, left)
        return timeout >= minimum ? timeout : nil
    }

    /// Whether a send that failed ran out of the deadline rather than failing on its own: the timeout is capped
    /// by the deadline, so the transport can call the deadline its own timeout a moment early.
    package static func ranOutOfTime(_ deadline: Deadline? = nil) -> Bool {
        guard let left = (deadline ?? Deadline.current)?.remaining else { return false }
        return left < minimum
    }
}
