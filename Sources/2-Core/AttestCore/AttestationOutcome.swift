/// What one attestation provider concluded about a request (docs/playintegrity.md, the merge).
///
/// A provider that is switched off, or that was not asked because the request carried none of its
/// evidence, has no outcome at all: it is represented by `nil` ("abstains") and left out of the merge.
/// Abstaining must never be turned into `unavailable`, or an environment without that provider would
/// let every request through, even in enforce mode (docs/playintegrity.md, "Outcomes and the merge").
public enum AttestationOutcome: String, Sendable, Hashable, CaseIterable {
    /// Cryptographically confirmed as a genuine install on a genuine device.
    case genuine
    /// Not genuine: forged, mismatched, missing a field, stale or already spent.
    case rejected
    /// A transient failure on our side or the provider's; the route's on-unavailable policy applies.
    case unavailable
}
