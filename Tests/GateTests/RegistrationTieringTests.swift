import AttestCore
import CivilTime
import FoundationEssentials
import Synchronization
import Testing

@testable import Gate

/// A mark service answering as told and recording what it was asked.
final class ScriptedMarks: DeviceMarks {
    let answer: Mutex<MarkReading>
    let reads = Atomic<Int>(0)
    let claims = Mutex<[String]>([])
    let flags = Mutex<[String]>([])
    let flagFailure: String?
    let claimFailure: String?

    init(_ answer: MarkReading, flagFailure: String? = nil, claimFailure: String? = nil) {
        self.answer = Mutex(answer)
        self.flagFailure = flagFailure
        self.claimFailure = claimFailure
    }

    func claim(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String? {
        claims.withLock { $0.append(deviceID) }
        return claimFailure
    }

    func read(deviceCheckToken: String?, deviceID: String, now: Date, deadline: Deadline) async -> MarkReading {
        reads.add(1, ordering: .relaxed)
        guard deviceCheckToken != nil else { return MarkReading(.missingToken, .markNoToken) }
        return answer.withLock { $0 }
    }

    func flag(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String? {
        flags.withLock { $0.append(deviceID) }
        return flagFailure
    }
}

/// A tier store whose reads or writes fail.
struct FailingTierStore: DeviceTierStore {
    let failRead: Bool
    func storedProfile(deviceID: String) async throws -> DeviceProfile? {
        if failRead { throw StoreError("store.test_failure") }
        return nil
    }
    func recordTier(
        deviceID: String,
        tier: DeviceTier,
        reason: String,
        today: String,
        marked: String?
    ) async throws -> DeviceTier {
        throw StoreError("store.test_failure")
    }
}

@Suite struct RegistrationTieringTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00 UTC
    static let token: String? = "dG9rZW4="
    static let deviceID = "7d444840-9dc0-11d1-b245-5ffdce74fad2"

    static func settle(
        _ marks: ScriptedMarks,
        _ tiers: any DeviceTierStore,
        binding: KeyBinding = .bound,
        token: String? = token,
        risk: RiskSignal = .notAsked
    ) async throws -> RegistrationTiering.Outcome {
        try await RegistrationTiering(marks: marks, tiers: tiers, calendar: .utc).settle(
            deviceID: deviceID,
            deviceCheckToken: token,
            binding: binding,
            risk: { risk },
            riskMax: 5,
            now: now,
            deadline: .after(.seconds(5))
        )
    }

    @Test func aClearMarkRecordsFirst() async throws {
        let tiers = InMemoryDeviceTierStore()
        let outcome = try await Self.settle(ScriptedMarks(MarkReading(.clear, .markClear)), tiers)
        #expect(outcome.tier == .first && outcome.reason == "mark.clear" && !outcome.unavailable)
        #expect(try await tiers.storedTier(deviceID: Self.deviceID) == .first)
        #expect(tiers.reason(deviceID: Self.deviceID) == "mark.clear")
    }

    @Test func setMissingAndUnavailableMarks() async throws {
        let cases: [(MarkReading, String?, DeviceTier, String, Bool)] = [
            (MarkReading(.set, .markSet), Self.token, .repeat, "mark.set", false),
            (MarkReading(.clear, .markClear), nil, .repeat, "mark.no_token", false),
            (
                MarkReading(.unavailable, .markUnavailable, detail: "devicecheck.bits_unavailable"), Self.token,
                .unknown,
                "mark.unavailable", true
            ),
        ]
        for (reading, token, tier, reason, unavailable) in cases {
            let tiers = InMemoryDeviceTierStore()
            let outcome = try await Self.settle(ScriptedMarks(reading), tiers, token: token)
            #expect(outcome.tier == tier && outcome.reason == reason && outcome.unavailable == unavailable)
            #expect(try await tiers.storedTier(deviceID: Self.deviceID) == tier)
        }
    }

    @Test func aReinstallKeepingItsDeviceIDKeepsItsTierWithoutAskingApple() async throws {
        for binding in [KeyBinding.rebound, .reRegistered] {
            for previous in [DeviceTier.first, .repeat] {
                let tiers = InMemoryDeviceTierStore()
                _ = try await tiers.recordTier(
                    deviceID: Self.deviceID,
                    tier: previous,
                    reason: "mark.clear",
                    // A `first` stored as `mark.clear` without `tier_marked` counts from this month.
                    today: "2026-11-30"
                )
                let marks = ScriptedMarks(MarkReading(.set, .markSet))
                let outcome = try await Self.settle(marks, tiers, binding: binding)
                #expect(outcome.tier == previous && outcome.reason == "tier.kept")
                #expect(marks.reads.load(ordering: .relaxed) == 0)
            }
        }
    }

    @Test func anUnknownOrAbsentTierIsSettledByTheMarkEvenOnARebind() async throws {
        let tiers = InMemoryDeviceTierStore()
        _ = try await tiers.recordTier(deviceID: Self.deviceID, tier: .unknown, reason: "mark.unavailable", today: "x")
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let outcome = try await Self.settle(marks, tiers, binding: .rebound)
        #expect(outcome.tier == .first && outcome.reason == "mark.clear")
        #expect(marks.reads.load(ordering: .relaxed) == 1)
    }

    @Test func aNewDeviceIDNeverInheritsAStoredTierItDidNotHoldAKeyFor() async throws {
        // `bound`: the device ID never held a key; a `first` mark read only on a clear device.
        let tiers = InMemoryDeviceTierStore()
        _ = try await tiers.recordTier(deviceID: Self.deviceID, tier: .repeat, reason: "mark.set", today: "x")
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let outcome = try await Self.settle(marks, tiers)
        // A repeat never moves: Apple is not asked (no bit 0 claimed for nothing).
        #expect(outcome.tier == .repeat && outcome.reason == "tier.kept")
        #expect(marks.reads.load(ordering: .relaxed) == 0)
    }

    @Test func aFlagIsRepeatAndSetsBitOneWhenATokenIsAtHand() async throws {
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let outcome = try await Self.settle(marks, InMemoryDeviceTierStore(), risk: .metric(12))
        #expect(outcome.tier == .repeat && outcome.reason == "risk.flagged")
        #expect(marks.flags.withLock { $0 } == [Self.deviceID])
        // Without a token there is nothing to flag.
        let untokened = ScriptedMarks(MarkReading(.clear, .markClear))
        _ = try await Self.settle(untokened, InMemoryDeviceTierStore(), token: nil, risk: .metric(6))
        #expect(untokened.flags.withLock { $0 }.isEmpty)
        // A metric at the maximum is no flag.
        let calm = ScriptedMarks(MarkReading(.clear, .markClear))
        #expect(try await Self.settle(calm, InMemoryDeviceTierStore(), risk: .metric(5)).tier == .first)
        #expect(calm.flags.withLock { $0 }.isEmpty)
    }

    @Test func aFailedFlagIsLoggedAndStillRepeat() async throws {
        let marks = ScriptedMarks(MarkReading(.set, .markSet), flagFailure: "devicecheck.bits_unavailable")
        let outcome = try await Self.settle(marks, InMemoryDeviceTierStore(), risk: .metric(40))
        #expect(outcome.tier == .repeat && outcome.fields["flagDetail"] == .string("devicecheck.bits_unavailable"))
    }

    /// Apple unavailable is `unknown`; a receipt our check refused is request content (the
    /// attestation's signature does not cover it) and never better than no receipt: `repeat`, and no flag.
    /// Neither writes bit 0.
    @Test func anUnavailableRiskIsUnknownAndAnUnverifiedOneIsRepeat() async throws {
        for (risk, tier, reason, unavailable) in [
            (RiskSignal.unavailable, DeviceTier.unknown, "risk.unavailable", true),
            (.unverified, .repeat, "risk.unverified", false),
        ] {
            let marks = ScriptedMarks(MarkReading(.clear, .markClear))
            let outcome = try await Self.settle(marks, InMemoryDeviceTierStore(), risk: risk)
            #expect(outcome.tier == tier && outcome.reason == reason && outcome.unavailable == unavailable)
            #expect(marks.claims.withLock { $0 }.isEmpty && marks.flags.withLock { $0 }.isEmpty)
        }
        // A set mark stays repeat whatever the risk.
        let outcome = try await Self.settle(
            ScriptedMarks(MarkReading(.set, .markSet)),
            InMemoryDeviceTierStore(),
            risk: .unavailable
        )
        #expect(outcome.tier == .repeat && outcome.reason == "mark.set")
    }

    /// Bit 0 is written only when the recorded tier is `first`, with the mark's month kept; a claim
    /// that fails is `unknown`, never `first`.
    @Test func bitZeroIsWrittenOnlyForAFirstAndItsMonthIsKept() async throws {
        let tiers = InMemoryDeviceTierStore()
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        let outcome = try await Self.settle(marks, tiers)
        #expect(outcome.tier == .first && marks.claims.withLock { $0 } == [Self.deviceID])
        #expect(tiers.marked(deviceID: Self.deviceID) == "2026-12")
        // Apple's receipt exchange down: `unknown`, the mark left clear for the settle that follows.
        let outage = ScriptedMarks(MarkReading(.clear, .markClear))
        let unknown = try await Self.settle(outage, InMemoryDeviceTierStore(), risk: .unavailable)
        #expect(unknown.tier == .unknown && outage.claims.withLock { $0 }.isEmpty)
        // The claim fails: unknown.
        let refused = ScriptedMarks(MarkReading(.clear, .markClear), claimFailure: "devicecheck.bits_unavailable")
        let failed = try await Self.settle(refused, InMemoryDeviceTierStore())
        #expect(failed.tier == .unknown && failed.reason == "mark.unavailable" && failed.unavailable)
        #expect(failed.fields["markDetail"] == .string("devicecheck.bits_unavailable"))
    }

    /// A held key's `first` whose mark is older than DEVICE_MARK_MONTHS is settled again by the mark.
    @Test func aReinstallWhoseFirstHasExpiredIsSettledAgainByTheMark() async throws {
        for (reading, tier, marked) in [
            (MarkReading(.clear, .markClear), DeviceTier.first, "2026-12"),
            // A mark in force may be its own (Apple's month and ours can differ): the expired first is kept.
            (MarkReading(.set, .markSet), .first, "2026-08"),
        ] {
            let tiers = InMemoryDeviceTierStore()
            _ = try await tiers.recordTier(
                deviceID: Self.deviceID,
                tier: .first,
                reason: "mark.clear",
                today: "2026-08-02",
                marked: "2026-08"
            )
            let marks = ScriptedMarks(reading)
            let outcome = try await Self.settle(marks, tiers, binding: .rebound)
            #expect(outcome.tier == tier && marks.reads.load(ordering: .relaxed) == 1)
            #expect(tiers.marked(deviceID: Self.deviceID) == marked)
        }
        // Within the window the reinstall keeps its first without asking Apple.
        let tiers = InMemoryDeviceTierStore()
        _ = try await tiers.recordTier(
            deviceID: Self.deviceID,
            tier: .first,
            reason: "mark.clear",
            today: "2026-09-02",
            marked: "2026-09"
        )
        let marks = ScriptedMarks(MarkReading(.set, .markSet))
        #expect(try await Self.settle(marks, tiers, binding: .rebound).tier == .first)
        #expect(marks.reads.load(ordering: .relaxed) == 0)
    }

    @Test func aStoreFailureThrowsAndAFailedReadAsksAppleNothing() async throws {
        let marks = ScriptedMarks(MarkReading(.clear, .markClear))
        await #expect(throws: StoreError.self) {
            _ = try await Self.settle(marks, FailingTierStore(failRead: true))
        }
        #expect(marks.reads.load(ordering: .relaxed) == 0)
        await #expect(throws: StoreError.self) {
            _ = try await Self.settle(marks, FailingTierStore(failRead: false))
        }
    }
}
