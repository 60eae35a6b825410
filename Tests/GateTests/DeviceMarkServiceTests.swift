import AttestCore
import CivilTime
import DeviceCheck
import FoundationEssentials
import Synchronization
import Testing

@testable import Gate

/// Apple's two bits in memory, answering as told, recording every call and what it charged.
final class FakeTwoBits: TwoBitsCalls {
    struct Call: Hashable {
        let path: String
        let bit0: Bool?
        let bit1: Bool?
        let chargedDevice: String?
    }

    let state = Mutex<TwoBitsState>(.neverSet)
    let queryFailure = Mutex<TwoBitsError?>(nil)
    let updateFailure = Mutex<TwoBitsError?>(nil)
    private let log = Mutex<[Call]>([])

    var calls: [Call] { log.withLock { $0 } }

    func query(
        deviceToken: String,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge?
    ) async throws(TwoBitsError) -> TwoBitsState {
        log.withLock { $0.append(Call(path: "query", bit0: nil, bit1: nil, chargedDevice: charge?.deviceID)) }
        if let failure = queryFailure.withLock({ $0 }) { throw failure }
        return state.withLock { $0 }
    }

    func update(
        deviceToken: String,
        bit0: Bool?,
        bit1: Bool?,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge?
    ) async throws(TwoBitsError) {
        log.withLock { $0.append(Call(path: "update", bit0: bit0, bit1: bit1, chargedDevice: charge?.deviceID)) }
        if let failure = updateFailure.withLock({ $0 }) { throw failure }
        let month = BitsMonth(year: 2026, month: 12)!
        state.withLock { state in
            var bits = DeviceBits(bit0: false, bit1: false, lastUpdate: month)
            if case .bits(let stored) = state { bits = stored }
            if let bit0 { bits.bit0 = bit0 }
            if let bit1 { bits.bit1 = bit1 }
            bits.lastUpdate = month
            state = .bits(bits)
        }
    }
}

/// A budget that never runs out (the real one is exercised in DeviceCheckTests and against moto).
struct OpenBudget: DeviceDailyBudget {
    func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision { .spent }
}

@Suite struct DeviceMarkServiceTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00 UTC
    static let deviceID = "7d444840-9dc0-11d1-b245-5ffdce74fad2"
    static let token = Bytes.base64(Array(repeating: UInt8(3), count: 64))

    static func read(_ bits: FakeTwoBits, token: String? = token, months: Int = 3) async -> MarkReading {
        await DeviceMarkService(bits: bits, budget: OpenBudget(), markMonths: months).read(
            deviceCheckToken: token,
            deviceID: deviceID,
            now: now,
            deadline: .after(.seconds(5))
        )
    }

    static func bits(_ bit0: Bool, _ bit1: Bool, _ year: Int, _ month: Int) -> TwoBitsState {
        .bits(DeviceBits(bit0: bit0, bit1: bit1, lastUpdate: BitsMonth(year: year, month: month)!))
    }

    static func claim(_ bits: FakeTwoBits) async -> String? {
        await DeviceMarkService(bits: bits, budget: OpenBudget(), markMonths: 3).claim(
            deviceCheckToken: token,
            deviceID: deviceID,
            now: now,
            deadline: .after(.seconds(5))
        )
    }

    /// Reading a clear mark writes nothing; bit 0 is written only by `claim`, which the tier step
    /// calls only for a `first`.
    @Test func aNeverMarkedDeviceIsClearAndOnlyAClaimWritesBitZero() async {
        let bits = FakeTwoBits()
        #expect(await Self.read(bits) == MarkReading(.clear, .markClear))
        #expect(bits.calls == [.init(path: "query", bit0: nil, bit1: nil, chargedDevice: Self.deviceID)])
        // Read again (an `unknown` tier settled later): still clear, not a mark of its own making.
        #expect(await Self.read(bits) == MarkReading(.clear, .markClear))
        #expect(await Self.claim(bits) == nil)
        #expect(bits.calls.last == .init(path: "update", bit0: true, bit1: nil, chargedDevice: Self.deviceID))
        // The next device ID on the same phone reads the mark.
        #expect(await Self.read(bits) == MarkReading(.set, .markSet))
        #expect(bits.calls.count == 4)
    }

    @Test func aMarkInForceIsSetAndWritesNothing() async {
        for state in [Self.bits(true, false, 2026, 10), Self.bits(false, true, 2026, 9)] {
            let bits = FakeTwoBits()
            bits.state.withLock { $0 = state }
            #expect(await Self.read(bits) == MarkReading(.set, .markSet))
            #expect(bits.calls.map(\.path) == ["query"])
        }
    }

    @Test func aMarkOlderThanTheMonthsIsClearedAndRenewedKeepingBitOne() async {
        let bits = FakeTwoBits()
        bits.state.withLock { $0 = Self.bits(true, true, 2026, 8) }
        #expect(await Self.read(bits, months: 3) == MarkReading(.clear, .markClear))
        #expect(await Self.claim(bits) == nil)
        #expect(bits.calls.last == .init(path: "update", bit0: true, bit1: nil, chargedDevice: Self.deviceID))
        #expect(bits.state.withLock { $0 } == Self.bits(true, true, 2026, 12))
        // With a longer DEVICE_MARK_MONTHS the same mark still holds.
        bits.state.withLock { $0 = Self.bits(true, false, 2026, 8) }
        #expect(await Self.read(bits, months: 4) == MarkReading(.set, .markSet))
    }

    @Test func noTokenAsksNobody() async {
        let bits = FakeTwoBits()
        #expect(await Self.read(bits, token: nil) == MarkReading(.missingToken, .markNoToken))
        #expect(bits.calls.isEmpty)
    }

    @Test(arguments: [TwoBitsError.Reason.tokenRejected, .tokenMalformed])
    func aTokenAppleRefusesIsNoBetterThanNone(_ reason: TwoBitsError.Reason) async {
        let bits = FakeTwoBits()
        bits.queryFailure.withLock { $0 = TwoBitsError(reason, status: 400) }
        let reading = await Self.read(bits)
        #expect(reading.signal == .missingToken && reading.reason == .markNoToken)
        #expect(reading.detail == reason.slug)
        #expect(bits.calls.map(\.path) == ["query"])
    }

    @Test(arguments: [
        TwoBitsError.Reason.serviceUnavailable, .rateLimited, .unauthorized, .deadlineExceeded, .budgetExhausted,
        .budgetStoreFailed, .signingFailed, .answerMalformed, .refused,
    ])
    func everyOtherQueryFailureIsUnavailable(_ reason: TwoBitsError.Reason) async {
        let bits = FakeTwoBits()
        bits.queryFailure.withLock { $0 = TwoBitsError(reason) }
        let reading = await Self.read(bits)
        #expect(reading == MarkReading(.unavailable, .markUnavailable, detail: reason.slug))
        #expect(reading.detail == reason.slug)
        #expect(bits.calls.map(\.path) == ["query"])
    }

    @Test(arguments: [
        TwoBitsError.Reason.serviceUnavailable, .rateLimited, .deadlineExceeded, .budgetExhausted, .tokenRejected,
    ])
    func aClaimWhoseWriteFailsAnswersItsSlug(_ reason: TwoBitsError.Reason) async {
        let bits = FakeTwoBits()
        bits.updateFailure.withLock { $0 = TwoBitsError(reason) }
        #expect(await Self.claim(bits) == reason.slug)
        // The refresh's read-and-claim is then unavailable, never clear.
        let service = DeviceMarkService(bits: bits, budget: OpenBudget(), markMonths: 3)
        let signal = await service.markSignal(
            deviceCheckToken: Self.token,
            deviceID: Self.deviceID,
            now: Self.now,
            deadline: .after(.seconds(5))
        )
        #expect(signal.signal == .unavailable && signal.reason == "mark.unavailable")
    }

    @Test func flaggingSetsBitOneOnlyAndIsCharged() async {
        let bits = FakeTwoBits()
        bits.state.withLock { $0 = Self.bits(true, false, 2026, 11) }
        let service = DeviceMarkService(bits: bits, budget: OpenBudget(), markMonths: 3)
        #expect(await service.flag(deviceCheckToken: Self.token, deviceID: Self.deviceID, now: Self.now))
        #expect(bits.calls == [.init(path: "update", bit0: nil, bit1: true, chargedDevice: Self.deviceID)])
        #expect(bits.state.withLock { $0 } == Self.bits(true, true, 2026, 12))
        bits.updateFailure.withLock { $0 = TwoBitsError(.rateLimited, status: 429) }
        #expect(await service.flag(deviceCheckToken: Self.token, deviceID: Self.deviceID, now: Self.now) == false)
        #expect(
            await service.flag(
                deviceCheckToken: Self.token,
                deviceID: Self.deviceID,
                now: Self.now,
                deadline: .after(.seconds(1))
            ) == "devicecheck.bits_rate_limited"
        )
    }
}
