/// The result of evaluating a metered call's proof, as the gate sees it.
package enum GateEvidence: Sendable, Hashable {
    /// A binding provider vouched for this device ID and this request.
    case genuine(proof: ProofKind)
    /// A proof was presented and did not hold, or the merge refused it; `reason` is a log slug.
    case rejected(proof: ProofKind, reason: String)
    /// The proof could not be evaluated (provider or store outage); never reachable from request content.
    case unavailable(proof: ProofKind, reason: String)
    /// No proof at all.
    case absent

    /// Which kind of proof the call carried (a bounded value for logs).
    package enum ProofKind: String, Sendable, Hashable {
        case appAttest = "app_attest"
        case playIntegrity = "play_integrity"
        case deviceCheck = "device_check"
        /// An operator's debug token (`attestgate debug-token`), only with `DEBUG_TOKENS=on`.
        case debug
        case none
    }

    package var proof: ProofKind {
        switch self {
        case .genuine(let proof), .rejected(let proof, _), .unavailable(let proof, _): proof
        case .absent: .none
        }
    }

    /// The bounded outcome label used in decision lines.
    package var label: String {
        switch self {
        case .genuine: "genuine"
        case .rejected: "rejected"
        case .unavailable: "unavailable"
        case .absent: "absent"
        }
    }

    package var reason: String? {
        switch self {
        case .rejected(_, let reason), .unavailable(_, let reason): reason
        case .genuine: nil
        case .absent: GateReason.noProof.slug
        }
    }
}
