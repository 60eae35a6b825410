import Testing

@testable import Gate

@Suite struct GateDecisionTests {
    let genuine = GateEvidence.genuine(proof: .appAttest)
    let rejected = GateEvidence.rejected(proof: .appAttest, reason: "appattest.nonce_mismatch")
    let unavailable = GateEvidence.unavailable(proof: .playIntegrity, reason: "play.google_unavailable")

    @Test func offAdmitsEverythingAndCountsNothing() {
        for evidence in [genuine, rejected, unavailable, .absent] {
            let decision = GateDecision.decide(mode: .off, evidence: evidence, onUnavailable: .deny)
            #expect(decision.admit && decision.label == "skipped" && decision.metrics.isEmpty)
        }
    }

    @Test func monitorNeverRefusesButLogsWhatEnforceWouldBlock() {
        let none = GateDecision.decide(mode: .monitor, evidence: .absent, onUnavailable: .allow)
        #expect(none.admit && none.label == "would_block")
        #expect(none.metrics == ["attestation_check": 1, "would_block": 1])
        let bad = GateDecision.decide(mode: .monitor, evidence: rejected, onUnavailable: .allow)
        #expect(bad.admit && bad.label == "would_block")
        let good = GateDecision.decide(mode: .monitor, evidence: genuine, onUnavailable: .allow)
        #expect(good.admit && good.label == "pass" && good.metrics == ["attestation_check": 1])
    }

    @Test func enforceRefusesAbsentAndRejectedProofs() {
        for evidence in [rejected, .absent] {
            let decision = GateDecision.decide(mode: .enforce, evidence: evidence, onUnavailable: .allow)
            #expect(!decision.admit && decision.label == "block")
            #expect(decision.metrics == ["attestation_check": 1, "block": 1])
        }
        #expect(GateDecision.decide(mode: .enforce, evidence: genuine, onUnavailable: .deny).admit)
    }

    /// The unproven pool takes only a call with no proof at all, only on enforce (docs/gate.md, "The unproven pool").
    @Test func theUnprovenPoolServesOnlyAbsentProofsOnEnforce() {
        let pooled = GateDecision.decide(mode: .enforce, evidence: .absent, onUnavailable: .allow, unprovenPool: true)
        #expect(pooled.admit && pooled.pooled && pooled.metrics == ["attestation_check": 1, "unproven": 1])
        let forged = GateDecision.decide(mode: .enforce, evidence: rejected, onUnavailable: .allow, unprovenPool: true)
        #expect(!forged.admit && forged.label == "block")
        let watched = GateDecision.decide(mode: .monitor, evidence: .absent, onUnavailable: .allow, unprovenPool: true)
        #expect(watched.admit && !watched.pooled && watched.label == "would_block")
        let closed = GateDecision.decide(
            mode: .enforce,
            evidence: unavailable,
            onUnavailable: .deny,
            unprovenPool: true
        )
        #expect(!closed.admit && !closed.pooled)
    }

    @Test func unavailableFollowsTheRoutePolicyAndIsAlwaysCounted() {
        let open = GateDecision.decide(mode: .enforce, evidence: unavailable, onUnavailable: .allow)
        #expect(open.admit && open.label == "pass" && open.metrics["unavailable"] == 1)
        let closed = GateDecision.decide(mode: .enforce, evidence: unavailable, onUnavailable: .deny)
        #expect(!closed.admit && closed.label == "block" && closed.metrics["unavailable"] == 1)
        let watched = GateDecision.decide(mode: .monitor, evidence: unavailable, onUnavailable: .deny)
        #expect(watched.admit && watched.label == "would_block")
    }
}
