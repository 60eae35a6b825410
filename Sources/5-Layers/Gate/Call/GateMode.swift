/// How a metered route treats device attestation (docs/operations.md §1, the rollout).
package enum GateMode: String, Sendable, Hashable, CaseIterable {
    /// Nothing is verified and nothing is spent.
    case off
    /// Everything is verified, nothing is refused; what enforce would refuse is logged as `would_block`.
    case monitor
    /// Requests without a genuine proof are refused with `403 attestation_required`.
    case enforce
}

/// What a route does when attestation could not be evaluated (a provider or our store is down).
package enum UnavailablePolicy: String, Sendable, Hashable, CaseIterable {
    /// Fail open (the default, docs/api.md section 5): an outage on Apple's, Google's or our side does not lock
    /// guests out.
    case allow
    /// Fail closed: for routes where an outage must not open the door.
    case deny
}
