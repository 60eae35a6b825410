import AttestCore
import Gate
import Testing

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

    /// docs/playintegrity.md's merge rules written as a decision list, independently of the implementation's structure.
    static func expected(_ c: Case) -> (AttestationOutcome?, flagged: Bool) {
        if c.appAttest == .genuine { return (.genuine, false) }
        if c.appAttest == .rejected { return (.rejected, false) }
        if c.play == .genuine { return (.genuine, false) }
        if c.play == .rejected { return (.rejected, false) }
        if c.play == .unavailable { return (.rejected, true) }
        if c.deviceCheck == .genuine { return (.genuine, false) }
        if c.deviceCheck == .rejected { return (.rejected, false) }
        if c.appAttest == .unavailable { return (.unavailable, false) }
        // DeviceCheck alone and unavailable: a caller can provoke it, so it refuses.
        if c.deviceCheck == .unavailable { return (.rejected, true) }
        return (nil, false)
    }

    /// An outcome as a provider's answer, with a reason naming the provider (to see whose reason is kept).
    static func answer(_ outcome: AttestationOutcome?, _ provider: String) -> ProviderMerge.Answer? {
        outcome.map { ProviderMerge.Answer($0, reason: $0 == .genuine ? nil : "\(provider).\($0.rawValue)") }
    }

    static func merge(
        _ appAttest: AttestationOutcome?,
        _ play: AttestationOutcome?,
        _ deviceCheck: AttestationOutcome?
    ) -> ProviderMerge.Result {
        ProviderMerge.merge(
            appAttest: answer(appAttest, "aa"),
            playIntegrity: answer(play, "play"),
            deviceCheck: answer(deviceCheck, "dc")
        )
    }

    @Test(arguments: allCases)
    func mergeFollowsSeedSection8(_ c: Case) {
        let result = Self.merge(c.appAttest, c.play, c.deviceCheck)
        let (outcome, flagged) = Self.expected(c)
        #expect(result.outcome == outcome)
        #expect(result.unavailableRejected == flagged)
        #expect(result.passes == (outcome == .genuine))
        #expect((result.decidedBy == nil) == (outcome == nil))
        // The reason is the deciding provider's own.
        let decider: [ProviderMerge.Provider: String] = [.appAttest: "aa", .playIntegrity: "play", .deviceCheck: "dc"]
        if let decidedBy = result.decidedBy, outcome != .genuine {
            #expect(result.reason?.hasPrefix(decider[decidedBy]! + ".") == true)
        }
    }

    @Test(arguments: allCases)
    func lazyEvaluationEqualsMergeAndAsksOnlyWhatIsNeeded(_ c: Case) async {
        let asked = Asked()
        let result = await ProviderMerge.evaluate(
            appAttest: {
                await asked.note("aa")
                return Self.answer(c.appAttest, "aa")
            },
            playIntegrity: {
                await asked.note("play")
                return Self.answer(c.play, "play")
            },
            deviceCheck: {
                await asked.note("dc")
                return Self.answer(c.deviceCheck, "dc")
            }
        )
        #expect(result == Self.merge(c.appAttest, c.play, c.deviceCheck))
        let names = await asked.names
        let appAttestDecided = c.appAttest == .genuine || c.appAttest == .rejected
        #expect(names.contains("aa"))
        #expect(names.contains("play") == !appAttestDecided)
        #expect(names.contains("dc") == (!appAttestDecided && c.play == nil))
    }

    // MARK: DeviceCheck never overrides another provider's answer; switched off it passes nothing

    @Test(arguments: choices)
    func deviceCheckNeverOverridesAnAppAttestRejection(_ deviceCheck: AttestationOutcome?) {
        for play in Self.choices {
            let result = Self.merge(.rejected, play, deviceCheck)
            #expect(result.outcome == .rejected)
            #expect(result.decidedBy == .appAttest)
        }
    }

    @Test(arguments: choices)
    func deviceCheckNeverOverridesAPlayIntegrityAnswer(_ deviceCheck: AttestationOutcome?) {
        for play: AttestationOutcome in [.rejected, .unavailable] {
            let result = Self.merge(nil, play, deviceCheck)
            #expect(result.outcome == .rejected)
        }
    }

    @Test func unconfiguredDeviceCheckWithATokenPassesNothing() {
        // DeviceCheck switched off abstains (nil) whatever `X-Device-Check-Token` says; with no other proof
        // the merge has no outcome: neither a pass nor `unavailable` (which enforce mode would let through).
        let result = Self.merge(nil, nil, nil)
        #expect(result.outcome == nil)
        #expect(!result.passes)
        #expect(result.outcome != .unavailable)
    }

    @Test func playUnavailableIsRejectedAndFlagged() {
        let result = Self.merge(nil, .unavailable, .genuine)
        #expect(result.outcome == .rejected)
        #expect(result.decidedBy == .playIntegrity)
        #expect(result.unavailableRejected)
    }

    @Test func deviceCheckUnavailableAloneIsRejectedAndFlagged() {
        // Apple's 429 or timeout on a DeviceCheck-only request refuses, whatever onUnavailable says.
        let result = Self.merge(nil, nil, .unavailable)
        #expect(result.outcome == .rejected)
        #expect(result.decidedBy == .deviceCheck)
        #expect(result.unavailableRejected)
        // Behind App Attest's own unavailability (our store), it stays unavailable and is not flagged.
        let behind = Self.merge(.unavailable, nil, .unavailable)
        #expect(behind.outcome == .unavailable && behind.decidedBy == .appAttest && !behind.unavailableRejected)
    }

    @Test func appAttestUnavailableFallsBackToDeviceCheck() {
        #expect(Self.merge(.unavailable, nil, .genuine).outcome == .genuine)
        #expect(Self.merge(.unavailable, nil, nil).outcome == .unavailable)
    }
}

actor Asked {
    var names: [String] = []
    func note(_ name: String) { names.append(name) }
}
