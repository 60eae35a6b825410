import AttestCore
import CivilTime
import FoundationEssentials
import PlayIntegrity
import Synchronization
import TestSupport
import Testing
import WireContract

@testable import Gate

/// A `DeviceRecallWriting` that records the tokens it was asked to write for, and can fail.
final class RecordingRecallWriter: DeviceRecallWriting {
    private let state = Mutex<(tokens: [String], failure: DeviceRecallError?)>(([], nil))

    init(failure: DeviceRecallError? = nil) { state.withLock { $0.failure = failure } }

    func setFirstBit(integrityToken: String, now: Date) async throws(DeviceRecallError) {
        let failure = state.withLock { state -> DeviceRecallError? in
            state.tokens.append(integrityToken)
            return state.failure
        }
        if let failure { throw failure }
    }

    var tokens: [String] { state.withLock { $0.tokens } }
}

/// Android's device tier from the verdict's recall bits (docs/gate.md "Device tiers").
@Suite struct PlayRecallTieringTests {
    static let device = "6f1c2d3e-0000-4000-8000-00000000000a"
    static let now = Date(timeIntervalSince1970: 1_780_000_000)

    static func evidence(_ recall: DeviceRecallReading, token: String = "tok-1") -> PlayRecallEvidence {
        PlayRecallEvidence(recall: recall, integrityToken: token)
    }

    static let clear = DeviceRecallReading.values(DeviceRecall(bitFirst: false, bitSecond: true))
    static let set = DeviceRecallReading.values(DeviceRecall(bitFirst: true))

    struct Rig {
        let writer: RecordingRecallWriter
        let tiers = InMemoryDeviceTierStore()
        let logs = CapturingLogSink()
        var tiering: PlayRecallTiering {
            PlayRecallTiering(writer: writer, tiers: tiers, logger: Logger(sink: logs))
        }

        init(writer: RecordingRecallWriter = RecordingRecallWriter()) { self.writer = writer }

        func settle(_ recall: DeviceRecallReading, stored: DeviceTier? = nil) async throws -> TierSettlement? {
            try await tiering.settle(
                deviceID: PlayRecallTieringTests.device,
                stored: stored,
                evidence: PlayRecallTieringTests.evidence(recall),
                today: "2026-05-28",
                now: PlayRecallTieringTests.now
            )
        }
    }

    @Test func aClearBitIsWrittenThenTheIDIsFirst() async throws {
        let rig = Rig()
        let settled = try #require(try await rig.settle(Self.clear))
        #expect(settled == TierSettlement(tier: .first, reason: "recall.clear", signal: .clear))
        #expect(!settled.unavailable)
        #expect(rig.writer.tokens == ["tok-1"])
        #expect(try await rig.tiers.storedTier(deviceID: Self.device) == .first)
        #expect(rig.tiers.reason(deviceID: Self.device) == "recall.clear")
    }

    @Test func aSetBitIsRepeatAndNothingIsWritten() async throws {
        let rig = Rig()
        let settled = try #require(try await rig.settle(Self.set))
        #expect(settled == TierSettlement(tier: .repeat, reason: "recall.set", signal: .set))
        #expect(rig.writer.tokens.isEmpty)
        #expect(try await rig.tiers.storedTier(deviceID: Self.device) == .repeat)
    }

    @Test(arguments: [DeviceRecallReading.absent, .unrecognized])
    func noRecallValuesIsUnknownAndUnavailable(_ recall: DeviceRecallReading) async throws {
        let rig = Rig()
        let settled = try #require(try await rig.settle(recall))
        #expect(settled == TierSettlement(tier: .unknown, reason: "recall.unavailable", signal: .unavailable))
        #expect(settled.unavailable)
        #expect(rig.writer.tokens.isEmpty)
        #expect(try await rig.tiers.storedTier(deviceID: Self.device) == .unknown)
    }

    @Test func aFailedWriteIsUnknownNeverFirst() async throws {
        let rig = Rig(writer: RecordingRecallWriter(failure: DeviceRecallError(.serverError)))
        let settled = try #require(try await rig.settle(Self.clear))
        #expect(settled.tier == .unknown && settled.reason == "recall.unavailable" && settled.unavailable)
        #expect(rig.writer.tokens == ["tok-1"])
        #expect(rig.logs.lines.contains { $0.contains("play.recall.server_error") })
        // The token is never logged.
        #expect(!rig.logs.lines.contains { $0.contains("tok-1") })
    }

    /// A settled tier is never looked at again: nothing is read, written or asked of Google.
    @Test(arguments: [DeviceTier.first, .repeat])
    func aSettledTierIsLeftAlone(_ stored: DeviceTier) async throws {
        let rig = Rig()
        #expect(try await rig.settle(Self.clear, stored: stored) == nil)
        #expect(try await rig.settle(Self.set, stored: stored) == nil)
        #expect(rig.writer.tokens.isEmpty)
        #expect(try await rig.tiers.storedTier(deviceID: Self.device) == nil)
    }

    /// `unknown` is retried on a later call: Google back, the bit is read again.
    @Test func anUnknownTierIsSettledByALaterCall() async throws {
        let rig = Rig()
        #expect(try await rig.settle(.absent)?.tier == .unknown)
        #expect(try await rig.settle(Self.clear, stored: .unknown)?.tier == .first)
        #expect(try await rig.tiers.storedTier(deviceID: Self.device) == .first)
    }

    /// Google still not answering: an `unknown` row is not written again.
    @Test func anUnknownTierThatStaysUnknownIsNotWrittenAgain() async throws {
        let rig = Rig(writer: RecordingRecallWriter(failure: DeviceRecallError(.transport)))
        _ = try await rig.tiers.recordTier(deviceID: Self.device, tier: .unknown, reason: "marker", today: "d")
        let settled = try #require(try await rig.settle(Self.clear, stored: .unknown))
        #expect(settled.tier == .unknown && settled.unavailable)
        #expect(rig.tiers.reason(deviceID: Self.device) == "marker")
        #expect(rig.writer.tokens == ["tok-1"])
    }

    /// Two calls of one ID racing: the store's answer (the tier that refused our move) is what counts.
    @Test func theStoresAnswerWinsOverOurs() async throws {
        let rig = Rig()
        _ = try await rig.tiers.recordTier(deviceID: Self.device, tier: .repeat, reason: "recall.set", today: "d")
        // Our caller read no tier (before the racing write): we still end on `repeat`, and say so.
        let settled = try #require(try await rig.settle(Self.clear))
        #expect(settled.tier == .repeat)
    }

    @Test func aStoreFailureThrows() async {
        let tiering = PlayRecallTiering(
            writer: RecordingRecallWriter(),
            tiers: FailingTierStore(failRead: false),
            logger: Logger(sink: CapturingLogSink())
        )
        await #expect(throws: StoreError.self) {
            try await tiering.settle(
                deviceID: Self.device,
                stored: nil,
                evidence: Self.evidence(Self.set),
                today: "d",
                now: Self.now
            )
        }
    }

    @Test func theReasonSlugsAreTheAgreedOnes() {
        #expect(GateReason.recallClear.slug == "recall.clear")
        #expect(GateReason.recallSet.slug == "recall.set")
        #expect(GateReason.recallUnavailable.slug == "recall.unavailable")
    }
}

/// The recall step inside `MeteredCall` (docs/gate.md "Device tiers"): a genuine Play call settles the
/// device ID's tier before it is metered, once.
@Suite struct MeteredRecallTests {
    let noon = Date(timeIntervalSince1970: 1_796_040_000)
    let device = "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"
    let route: MeteredRoute = {
        var route = MeteredRoute(
            path: "/v1/generate",
            feature: "generation",
            mode: .enforce,
            allowance: AllowancePolicy(firstDay: 3, laterDays: 2),
            upstreamPath: "/generate"
        )
        route.repeatAllowance = AllowancePolicy(firstDay: 1, laterDays: 0)
        return route
    }()

    struct Stack {
        let call: MeteredCall
        let tiers: InMemoryDeviceTierStore
        let writer: RecordingRecallWriter
        let sink = CapturingLogSink()
    }

    func stack(_ recall: DeviceRecallReading?, on: Bool = true, writer: RecordingRecallWriter = .init()) -> Stack {
        let tiers = InMemoryDeviceTierStore()
        let challenges = InMemoryChallengeStore(tiers: tiers)
        var report = EvidenceReport(evidence: .genuine(proof: .playIntegrity), spentChallenge: true)
        report.playRecall = recall.map { PlayRecallEvidence(recall: $0, integrityToken: "tok-1") }
        var call = MeteredCall(
            environment: "development",
            evidence: ReportingEvidence(report: report),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: InMemoryAllowanceStore(), calendar: .utc),
            ceilingGuard: CeilingGuard(store: InMemoryCeilingStore(), dailyLimit: 100, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: Array("{}".utf8)))
        )
        call.tiering = DeviceTiering(recall: on)
        call.recallTiering = PlayRecallTiering(writer: writer, tiers: tiers, logger: Logger(sink: CapturingLogSink()))
        return Stack(call: call, tiers: tiers, writer: writer)
    }

    /// Calls until the allowance refuses (at most 10): how many were admitted, and the first decision line.
    func calls(_ s: Stack) async -> (admitted: Int, line: JSONValue?) {
        var admitted = 0
        var line: JSONValue?
        for _ in 0..<10 {
            let response = await s.call.handle(
                MeteredRequest(
                    method: "POST",
                    rawPath: "/v1/generate",
                    headers: [WireHeader.deviceID.key: device],
                    body: []
                ),
                route: route,
                now: noon,
                deadline: .after(.seconds(5)),
                logger: Logger(sink: s.sink)
            )
            if admitted == 0 { line = s.sink.objects.last }
            guard response.status == 200 else { break }
            admitted += 1
        }
        return (admitted, line)
    }

    @Test func aClearBitGivesTheFirstTierAndIsWrittenOnce() async throws {
        let s = stack(PlayRecallTieringTests.clear)
        let (admitted, line) = await calls(s)
        #expect(admitted == 3)
        #expect(line?["tier"] == .string("first"))
        #expect(line?["tierReason"] == .string("recall.clear"))
        #expect(line?["unavailable"] == nil)
        #expect(s.writer.tokens == ["tok-1"])
        #expect(try await s.tiers.storedTier(deviceID: device) == .first)
    }

    @Test func aSetBitMetersTheRepeatAllowance() async throws {
        let s = stack(PlayRecallTieringTests.set)
        let (admitted, line) = await calls(s)
        #expect(admitted == 1)
        #expect(line?["tier"] == .string("repeat"))
        #expect(line?["tierReason"] == .string("recall.set"))
        #expect(s.writer.tokens.isEmpty)
    }

    @Test func noRecallValuesIsUnknownCountedUnavailableAndMeteredByOnUnknownDevice() async throws {
        let s = stack(.absent)
        let (admitted, line) = await calls(s)
        // onUnknownDevice defaults to repeat.
        #expect(admitted == 1)
        #expect(line?["tier"] == .string("unknown"))
        #expect(line?["tierReason"] == .string("recall.unavailable"))
        #expect(line?["unavailable"] == .int(1))
    }

    @Test func recallOffReadsAndWritesNothing() async throws {
        let s = stack(PlayRecallTieringTests.clear, on: false)
        let (admitted, line) = await calls(s)
        #expect(admitted == 3)
        #expect(line?["tier"] == .string("first"))
        #expect(line?["tierReason"] == .string("tier.off"))
        #expect(s.writer.tokens.isEmpty)
        #expect(try await s.tiers.storedTier(deviceID: device) == nil)
    }

    /// A call whose proof was not a genuine Play verdict leaves nothing to settle: request content never
    /// yields `first`.
    @Test func withoutAGenuinePlayVerdictTheIDIsUnproven() async throws {
        let s = stack(nil)
        let (admitted, line) = await calls(s)
        #expect(admitted == 1)
        #expect(line?["tier"] == .string("repeat"))
        #expect(line?["tierReason"] == .string("tier.unproven"))
        #expect(s.writer.tokens.isEmpty)
    }
}
