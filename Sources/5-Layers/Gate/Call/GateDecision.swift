/// What the gate does with a metered call, given the route's mode and the evidence.
///
/// Pure: the same inputs always give the same decision, so every mode/outcome pair is tested without I/O.
package struct GateDecision: Sendable, Hashable {
    /// Whether the call goes on to the allowance, the ceiling and the upstream.
    package let admit: Bool
    /// The bounded label logged on the decision line: `pass`, `would_block`, `block`, `unproven` or `skipped`.
    package let label: String
    /// Metric counts this decision contributes (names from the shared EMF contract).
    package let metrics: [String: Int]

    /// Whether the call is served from the unproven pool (`unproven`): no proof on an enforce route that has one.
    package var pooled: Bool { label == "unproven" }

    /// - Parameter unprovenPool: the route has an unproven pool (`unproven`): on `enforce`, a call that
    ///   carries no proof at all is served from it instead of refused; a failed or forged proof never is
    ///   (docs/gate.md, "The unproven pool").
    package static func decide(
        mode: GateMode,
        evidence: GateEvidence,
        onUnavailable: UnavailablePolicy,
        unprovenPool: Bool = false
    ) -> GateDecision {
        if mode == .off { return GateDecision(admit: true, label: "skipped", metrics: [:]) }
        var metrics = ["attestation_check": 1]
        let refuse: Bool
        switch evidence {
        case .genuine:
            refuse = false
        case .rejected, .absent:
            refuse = true
        case .unavailable:
            metrics["unavailable"] = 1
            refuse = onUnavailable == .deny
        }
        guard refuse else { return GateDecision(admit: true, label: "pass", metrics: metrics) }
        if mode == .monitor {
            metrics["would_block"] = 1
            return GateDecision(admit: true, label: "would_block", metrics: metrics)
        }
        if unprovenPool, evidence == .absent {
            metrics["unproven"] = 1
            return GateDecision(admit: true, label: "unproven", metrics: metrics)
        }
        metrics["block"] = 1
        return GateDecision(admit: false, label: "block", metrics: metrics)
    }
}
