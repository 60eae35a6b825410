import Testing

@testable import AttestCore

@Suite struct ProviderMergeTests {
    static let choices: [AttestationOutcome?] = [nil, .genuine, .rejected, .unavailable]

    struct Case: Sendable, CustomTestStringConvertible {
        let appAttest: AttestationOutcome?
        let play: AttestationOutcome?
        let deviceCheck: AttestationOutcome?
        var testDescription: String {
            "aa=\(appAttest?.rawValue ?? "-") play=\(play?.rawValue ?? "-") dc=\(deviceCheck?.rawValue ?? "-")"
        }
    }

    static let allCases: [Case] = choices.flatMap { a in
        choices.flatMap { p in choices.map { d in Case(appAttest: a, play: p, deviceCheck: d) } }
    }

    /// The seed's rules written as a decision list, independently of the implementation's structure.
    static func expected(_ c: Case) -> (AttestationOutcome?, flagged: Bool) {
        if c.appAttest == .genuine { return (.genuine, false) }
        if c.appAttest == .rejected { return (.rejected, false) }
        if c.play == .genuine { return (.genuine, false) }
        if c.play == .rejected { return (.rejected, false) }
        if c.play == .unavailable { return (.rejected, true) }
        if c.deviceCheck == .genuine { return (.genuine, false) }
        if c.deviceCheck == .rejected { return (.rejected, false) }
        if c.deviceCheck == .unavailable || c.appAttest == .unavailable { return (.unavailable, false) }
        return (nil, false)
    }

    @Test(arguments: allCases)
    func mergeFollowsSeedSection8(_ c: Case) {
        let result = ProviderMerge.merge(appAttest: c.appAttest, playIntegrity: c.play, deviceCheck: c.deviceCheck)
        let (outcome, flagged) = Self.expected(c)
        #expect(result.outcome == outcome)
        #expect(result.bindingUnavailableRejected == flagged)
        #expect(result.passes == (outcome == .genuine))
        #expect((result.decidedBy == nil) == (outcome == nil))
    }

    @Test(arguments: allCases)
    func lazyEvaluationEqualsMergeAndAsksOnlyWhatIsNeeded(_ c: Case) async {
        let asked = Asked()
        let result = await ProviderMerge.evaluate(
            appAttest: {
                await asked.note("aa")
                return c.appAttest
            },
            playIntegrity: {
                await asked.note("play")
                return c.play
            },
            deviceCheck: {
                await asked.note("dc")
                return c.deviceCheck
            }
        )
        #expect(
            result == ProviderMerge.merge(appAttest: c.appAttest, playIntegrity: c.play, deviceCheck: c.deviceCheck)
        )
        let names = await asked.names
        let appAttestDecided = c.appAttest == .genuine || c.appAttest == .rejected
        #expect(names.contains("aa"))
        #expect(names.contains("play") == !appAttestDecided)
        #expect(names.contains("dc") == (!appAttestDecided && c.play == nil))
    }

    // MARK: The seed's recorded bugs (DEF-6)

    @Test(arguments: choices)
    func deviceCheckNeverOverridesAnAppAttestRejection(_ deviceCheck: AttestationOutcome?) {
        for play in Self.choices {
            let result = ProviderMerge.merge(appAttest: .rejected, playIntegrity: play, deviceCheck: deviceCheck)
            #expect(result.outcome == .rejected)
            #expect(result.decidedBy == .appAttest)
        }
    }

    @Test(arguments: choices)
    func deviceCheckNeverOverridesAPlayIntegrityAnswer(_ deviceCheck: AttestationOutcome?) {
        for play: AttestationOutcome in [.rejected, .unavailable] {
            let result = ProviderMerge.merge(appAttest: nil, playIntegrity: play, deviceCheck: deviceCheck)
            #expect(result.outcome == .rejected)
        }
    }

    @Test func unconfiguredDeviceCheckWithATokenPassesNothing() {
        // DeviceCheck switched off abstains (nil) whatever `X-Device-Check-Token` says; with no other proof
        // the merge has no outcome: neither a pass nor `unavailable` (which enforce mode would let through).
        let result = ProviderMerge.merge(appAttest: nil, playIntegrity: nil, deviceCheck: nil)
        #expect(result.outcome == nil)
        #expect(!result.passes)
        #expect(result.outcome != .unavailable)
    }

    @Test func playUnavailableIsRejectedAndFlagged() {
        let result = ProviderMerge.merge(appAttest: nil, playIntegrity: .unavailable, deviceCheck: .genuine)
        #expect(result.outcome == .rejected)
        #expect(result.decidedBy == .playIntegrity)
        #expect(result.bindingUnavailableRejected)
    }

    @Test func appAttestUnavailableFallsBackToDeviceCheck() {
        #expect(
            ProviderMerge.merge(appAttest: .unavailable, playIntegrity: nil, deviceCheck: .genuine).outcome == .genuine
        )
        #expect(
            ProviderMerge.merge(appAttest: .unavailable, playIntegrity: nil, deviceCheck: nil).outcome == .unavailable
        )
    }
}

actor Asked {
    var names: [String] = []
    func note(_ name: String) { names.append(name) }
}
