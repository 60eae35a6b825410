import AttestCore
import FoundationEssentials
import PlayIntegrity
import Synchronization
import TestSupport
import Testing

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

/// A tier store whose writes fail.
struct FailingTierStore: DeviceTierStore {
    func storedTier(deviceID: String) async throws -> DeviceTier? { throw StoreError("store.test_down") }
    func recordTier(deviceID: String, tier: DeviceTier, reason: String, today: String) async throws -> DeviceTier {
        throw StoreError("store.test_down")
    }
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
            tiers: FailingTierStore(),
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
