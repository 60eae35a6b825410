import AppAttest
import AttestCore
import CivilTime
import Crypto
import DeviceCheck
import FoundationEssentials
import SimulatedDevice
import Synchronization
import TestSupport
import Testing

@testable import Gate

/// Apple's receipt exchange, scripted: each call takes the next answer (the last one repeats).
final class ScriptedExchange: ReceiptExchanging {
    enum Answer {
        case receipt([UInt8])
        case notModified
        case failure(ReceiptExchangeError.Reason)
    }

    private let state: Mutex<(answers: [Answer], calls: [(receipt: [UInt8], charged: String?, allowed: Duration)])>

    init(_ answers: [Answer]) { state = Mutex((answers, [])) }

    func exchange(
        receipt: [UInt8],
        charge: DeviceCheckCharge?,
        now: Date,
        deadline: Deadline
    ) async throws(ReceiptExchangeError) -> ReceiptExchangeAnswer {
        let answer = state.withLock { state in
            state.calls.append((receipt, charge?.deviceID, deadline.remaining))
            return state.answers.count > 1 ? state.answers.removeFirst() : state.answers[0]
        }
        switch answer {
        case .receipt(let bytes): return .unverifiedReceipt(bytes)
        case .notModified: return .notModified
        case .failure(let reason): throw ReceiptExchangeError(reason)
        }
    }

    var calls: [(receipt: [UInt8], charged: String?, allowed: Duration)] { state.withLock { $0.calls } }
}

/// The key rows' receipt state in memory, with the contract's condition (the row must hold the key).
final class InMemoryRiskStore: RiskReceiptStore {
    struct Row: Equatable {
        var keyId: [UInt8]
        var risk = StoredRisk()
    }

    private let rows = Mutex<[String: Row]>([:])

    func bind(_ deviceID: String, keyId: [UInt8], receipt: [UInt8], unverified: Bool) {
        rows.withLock { $0[deviceID] = Row(keyId: keyId, risk: StoredRisk(receipt: receipt, unverified: unverified)) }
    }

    func row(_ deviceID: String) -> Row? { rows.withLock { $0[deviceID] } }

    func storeReceipt(
        deviceID: String,
        keyId: [UInt8],
        receipt: [UInt8],
        metric: Int,
        notBefore: Date,
        day: String
    ) async throws -> Bool {
        rows.withLock { rows in
            guard rows[deviceID]?.keyId == keyId else { return false }
            rows[deviceID]?.risk = StoredRisk(
                receipt: receipt,
                unverified: false,
                metric: metric,
                notBefore: notBefore,
                exchangedDay: day
            )
            return true
        }
    }

    func stampExchange(deviceID: String, keyId: [UInt8], day: String) async throws -> Bool {
        rows.withLock { rows in
            guard rows[deviceID]?.keyId == keyId else { return false }
            rows[deviceID]?.risk.exchangedDay = day
            return true
        }
    }
}

/// An in-memory DeviceCheck budget.
final class BudgetCounter: DeviceDailyBudget {
    private let spent = Mutex<Int>(0)
    func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision {
        spent.withLock { $0 += 1 }
        return .spent
    }
    var count: Int { spent.withLock { $0 } }
}

/// The mark service as the refresh sees it: a fixed mark, and the tokens flagged.
final class FakeRefreshMarks: RefreshMarks {
    let mark: MarkSignal
    private let state = Mutex<(flagged: [String], read: [String])>(([], []))

    init(mark: MarkSignal = .clear) { self.mark = mark }

    func markSignal(
        deviceCheckToken: String,
        deviceID: String,
        now: Date,
        deadline: Deadline
    ) async -> (signal: MarkSignal, reason: String) {
        state.withLock { $0.read.append(deviceCheckToken) }
        return (mark, mark == .clear ? "mark.clear" : "mark.set")
    }

    func flagDevice(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> Bool {
        state.withLock { $0.flagged.append(deviceCheckToken) }
        return true
    }

    var flagged: [String] { state.withLock { $0.flagged } }
    var read: [String] { state.withLock { $0.read } }
}

/// The fraud-risk metric service (`ReceiptRiskMetric`, `ReceiptRiskRefresh`) with fakes for Apple and the
/// stores and the real verifier over a simulated Apple CA.
@Suite struct RiskMetricTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00 UTC
    static let deviceID = "0b6f8a52-8f4e-4c39-9a55-0d3b1b7e2f10"
    let authority: SimulatedAppleCA
    let device: SimulatedDevice
    let verifier: AppAttestVerifier

    init() throws {
        authority = try SimulatedAppleCA(now: Self.now)
        device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
        verifier = AppAttestVerifier(
            teamId: "ABCDE12345",
            bundleIds: ["com.example.gate"],
            environment: .production,
            trust: .synthetic(root: authority.root)
        )
    }

    func register(_ options: AttestationOptions = .genuine) throws -> VerifiedRegistration {
        let key = try SimulatedAppAttestKey()
        let hash = Digest.sha256(Array("challenge".utf8))
        return try verifier.verifyRegistration(
            keyId: key.keyId,
            attestation: try device.attest(key, clientDataHash: hash, now: Self.now, options: options),
            clientDataHash: hash,
            now: Self.now
        )
    }

    func refreshed(
        _ registration: VerifiedRegistration,
        metric: Int,
        notBefore: Duration = .seconds(86_400)
    ) throws
        -> [UInt8]
    {
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.riskMetric = "\(metric)"
        options.notBefore = notBefore
        return try device.refreshedReceipt(
            credentialCertificateDER: registration.key.credentialCertificateDER,
            now: Self.now,
            options: options
        )
    }

    func service(
        _ exchange: ScriptedExchange,
        store: InMemoryRiskStore,
        budget: BudgetCounter = BudgetCounter()
    )
        -> ReceiptRiskMetric
    {
        ReceiptRiskMetric(
            exchanger: exchange,
            verifier: verifier,
            store: store,
            budget: budget,
            metricMax: 5,
            logger: Logger(sink: CapturingLogSink())
        )
    }

    func signal(_ service: ReceiptRiskMetric, _ registration: VerifiedRegistration) async -> RiskSignal {
        await service.riskAtRegistration(
            deviceID: Self.deviceID,
            registration: registration,
            binding: .bound,
            now: Self.now,
            deadline: .after(.seconds(5))
        )
    }

    @Test func aVerifiedReceiptGivesItsMetricAndIsStoredOnTheKeyRow() async throws {
        let registration = try register()
        let store = InMemoryRiskStore()
        store.bind(Self.deviceID, keyId: registration.key.keyId, receipt: registration.receiptBytes, unverified: false)
        let answer = try refreshed(registration, metric: 12)
        let exchange = ScriptedExchange([.receipt(answer)])
        #expect(await signal(service(exchange, store: store), registration) == .metric(12))
        #expect(exchange.calls.map(\.receipt) == [registration.receiptBytes])
        #expect(exchange.calls.map(\.charged) == [Self.deviceID])
        let risk = try #require(store.row(Self.deviceID)).risk
        #expect(
            risk
                == StoredRisk(
                    receipt: answer,
                    metric: 12,
                    notBefore: Self.now.addingTimeInterval(86_400),
                    exchangedDay: "2026-12-01"
                )
        )
    }

    @Test func appleFailingIsUnavailableAndCountsAsTheDaysAskOnlyWhenAppleWasAsked() async throws {
        let registration = try register()
        for (reason, stamped) in [
            (ReceiptExchangeError.Reason.serviceUnavailable, true), (.receiptRejected, true), (.rateLimited, true),
            (.budgetExhausted, false), (.deadlineExceeded, false), (.signingFailed, false),
        ] {
            let store = InMemoryRiskStore()
            store.bind(
                Self.deviceID,
                keyId: registration.key.keyId,
                receipt: registration.receiptBytes,
                unverified: false
            )
            let signal = await signal(service(ScriptedExchange([.failure(reason)]), store: store), registration)
            #expect(signal == .unavailable, "\(reason)")
            #expect(store.row(Self.deviceID)?.risk.exchangedDay == (stamped ? "2026-12-01" : nil), "\(reason)")
            #expect(store.row(Self.deviceID)?.risk.metric == nil)
        }
    }

    @Test func aReturnedReceiptOurCheckRefusesGivesNoMetric() async throws {
        let registration = try register()
        let other = try register()
        let store = InMemoryRiskStore()
        store.bind(Self.deviceID, keyId: registration.key.keyId, receipt: registration.receiptBytes, unverified: false)
        // A RECEIPT for another key, served for ours; then one past its expiry.
        var expired = SimulatedDevice.RefreshedReceiptOptions()
        expired.expiry = .seconds(-60)
        for answer in [
            try refreshed(other, metric: 1),
            try device.refreshedReceipt(
                credentialCertificateDER: registration.key.credentialCertificateDER,
                now: Self.now,
                options: expired
            ),
        ] {
            #expect(
                await signal(service(ScriptedExchange([.receipt(answer)]), store: store), registration) == .unavailable
            )
        }
        #expect(store.row(Self.deviceID)?.risk.receipt == registration.receiptBytes)
        #expect(store.row(Self.deviceID)?.risk.exchangedDay == "2026-12-01")
    }

    /// Point 4: a receipt our check refuses is still exchanged; the tier waits for a verified receipt.
    @Test func anUnverifiedReceiptIsUnverifiedUntilAppleReturnsAVerifiedOne() async throws {
        let registration = try register(.genuine.with { $0.receipt.signatureOverContent = true })
        #expect(registration.receiptRefusal == AppAttestError(.receiptSignatureInvalid))
        let store = InMemoryRiskStore()
        store.bind(Self.deviceID, keyId: registration.key.keyId, receipt: registration.receiptBytes, unverified: true)
        let down = ScriptedExchange([.failure(.serviceUnavailable)])
        #expect(await signal(service(down, store: store), registration) == .unverified)
        #expect(store.row(Self.deviceID)?.risk.unverified == true)
        let up = ScriptedExchange([.receipt(try refreshed(registration, metric: 2))])
        #expect(await signal(service(up, store: store), registration) == .metric(2))
        #expect(store.row(Self.deviceID)?.risk.unverified == false)
        #expect(store.row(Self.deviceID)?.risk.metric == 2)
    }

    @Test func aKeyReboundMeanwhileIsNeverGivenTheOldKeysReceipt() async throws {
        let registration = try register()
        let store = InMemoryRiskStore()
        store.bind(Self.deviceID, keyId: [UInt8](repeating: 9, count: 32), receipt: [1], unverified: false)
        let exchange = ScriptedExchange([.receipt(try refreshed(registration, metric: 3))])
        #expect(await signal(service(exchange, store: store), registration) == .metric(3))
        #expect(store.row(Self.deviceID)?.risk == StoredRisk(receipt: [1]))
    }

    // MARK: The refresh on a metered call

    func refresher(
        _ exchange: ScriptedExchange,
        store: InMemoryRiskStore,
        tiers: InMemoryDeviceTierStore,
        marks: FakeRefreshMarks?
    ) -> ReceiptRiskRefresh {
        ReceiptRiskRefresh(
            metric: service(exchange, store: store),
            tiers: tiers,
            marks: marks,
            calendar: .utc,
            logger: Logger(sink: CapturingLogSink())
        )
    }

    func storedKey(_ registration: VerifiedRegistration, risk: StoredRisk) -> StoredAppAttestKey {
        StoredAppAttestKey(
            keyId: registration.key.keyId,
            publicKey: registration.key.publicKey.derRepresentation,
            counter: 1,
            environment: "production",
            risk: risk
        )
    }

    @Test func aReceiptIsDueAfterItsNotBeforeAtMostOnceADay() throws {
        let registration = try register()
        let refresh = refresher(
            ScriptedExchange([.notModified]),
            store: InMemoryRiskStore(),
            tiers: InMemoryDeviceTierStore(),
            marks: nil
        )
        let later = Self.now.addingTimeInterval(2 * 86_400)
        let settled = StoredRisk(
            receipt: [1],
            metric: 1,
            notBefore: Self.now.addingTimeInterval(86_400),
            exchangedDay: "2026-12-01"
        )
        #expect(!refresh.isDue(storedKey(registration, risk: settled), now: Self.now))
        #expect(!refresh.isDue(storedKey(registration, risk: settled), now: Self.now.addingTimeInterval(3600)))
        #expect(refresh.isDue(storedKey(registration, risk: settled), now: later))
        var today = settled
        today.exchangedDay = "2026-12-03"
        #expect(!refresh.isDue(storedKey(registration, risk: today), now: later))
        // No verified receipt yet (our check refused it, or Apple failed at registration): due once a day.
        #expect(refresh.isDue(storedKey(registration, risk: StoredRisk(receipt: [1], unverified: true)), now: Self.now))
        #expect(refresh.isDue(storedKey(registration, risk: StoredRisk(receipt: [1])), now: Self.now))
        #expect(
            !refresh.isDue(
                storedKey(registration, risk: StoredRisk(receipt: [1], unverified: true, exchangedDay: "2026-12-01")),
                now: Self.now
            )
        )
        // Nothing to exchange.
        #expect(!refresh.isDue(storedKey(registration, risk: StoredRisk()), now: later))
    }

    @Test func aNewMetricAboveTheMaximumFlagsTheDeviceAndSetsBitOneWithAToken() async throws {
        let registration = try register()
        for token in ["token-1", nil] {
            let store = InMemoryRiskStore()
            store.bind(
                Self.deviceID,
                keyId: registration.key.keyId,
                receipt: registration.receiptBytes,
                unverified: false
            )
            let tiers = InMemoryDeviceTierStore()
            _ = try await tiers.recordTier(
                deviceID: Self.deviceID,
                tier: .first,
                reason: "mark.clear",
                today: "2026-11-30"
            )
            let marks = FakeRefreshMarks()
            let exchange = ScriptedExchange([.receipt(try refreshed(registration, metric: 12))])
            let recorded = await refresher(exchange, store: store, tiers: tiers, marks: marks).refresh(
                deviceID: Self.deviceID,
                key: storedKey(registration, risk: StoredRisk(receipt: registration.receiptBytes)),
                storedTier: .first,
                deviceCheckToken: token,
                now: Self.now
            )
            #expect(recorded == RecordedTier(tier: .repeat, reason: "risk.flagged"))
            #expect(try await tiers.storedTier(deviceID: Self.deviceID) == .repeat)
            #expect(tiers.reason(deviceID: Self.deviceID) == "risk.flagged")
            #expect(marks.flagged == (token.map { [$0] } ?? []))
            #expect(store.row(Self.deviceID)?.risk.metric == 12)
        }
    }

    @Test func notModifiedKeepsTheStoredReceiptAndStampsTheDay() async throws {
        let registration = try register()
        let store = InMemoryRiskStore()
        store.bind(Self.deviceID, keyId: registration.key.keyId, receipt: [7, 7], unverified: false)
        let tiers = InMemoryDeviceTierStore()
        let exchange = ScriptedExchange([.notModified])
        let recorded = await refresher(exchange, store: store, tiers: tiers, marks: FakeRefreshMarks()).refresh(
            deviceID: Self.deviceID,
            key: storedKey(registration, risk: StoredRisk(receipt: [7, 7], metric: 1)),
            storedTier: .unknown,
            deviceCheckToken: "token",
            now: Self.now
        )
        #expect(recorded == nil)
        #expect(exchange.calls.map(\.receipt) == [[7, 7]])
        #expect(store.row(Self.deviceID)?.risk == StoredRisk(receipt: [7, 7], exchangedDay: "2026-12-01"))
        #expect(try await tiers.storedTier(deviceID: Self.deviceID) == nil)
    }

    /// A verified receipt at most the maximum on an `unknown` device ID: the mark decides when the call carries a
    /// DeviceCheck token; without one the tier stays `unknown`. A settled tier is never touched.
    @Test func aVerifiedReceiptSettlesAnUnknownTierByTheMarkWhenATokenIsAtHand() async throws {
        let registration = try register(.genuine.with { $0.receipt.signatureOverContent = true })
        for (stored, token, mark, expected) in [
            (DeviceTier.unknown, "token", MarkSignal.clear, DeviceTier.first),
            (.unknown, "token", .set, .repeat),
            (.unknown, nil, .clear, .unknown),
            (.first, "token", .set, .first),
        ] as [(DeviceTier, String?, MarkSignal, DeviceTier)] {
            let store = InMemoryRiskStore()
            store.bind(
                Self.deviceID,
                keyId: registration.key.keyId,
                receipt: registration.receiptBytes,
                unverified: true
            )
            let tiers = InMemoryDeviceTierStore()
            _ = try await tiers.recordTier(deviceID: Self.deviceID, tier: stored, reason: "risk.unverified", today: "d")
            let marks = FakeRefreshMarks(mark: mark)
            let exchange = ScriptedExchange([.receipt(try refreshed(registration, metric: 1))])
            let recorded = await refresher(exchange, store: store, tiers: tiers, marks: marks).refresh(
                deviceID: Self.deviceID,
                key: storedKey(registration, risk: StoredRisk(receipt: registration.receiptBytes, unverified: true)),
                storedTier: stored,
                deviceCheckToken: token,
                now: Self.now
            )
            #expect(
                try await tiers.storedTier(deviceID: Self.deviceID) == expected,
                "\(stored) \(String(describing: token)) \(mark)"
            )
            #expect(recorded?.tier == (expected == stored ? nil : expected))
            #expect(store.row(Self.deviceID)?.risk.unverified == false)
            #expect(marks.flagged.isEmpty)
        }
    }

    /// A key registered before marks were turned on (no stored tier) is settled by its first due
    /// refresh through the conditional write: `first` (`tier.legacy_key`) at most the maximum, `repeat` above
    /// it; Apple failing records nothing (it stays untiered and is metered `first`).
    @Test func aLegacyKeyIsSettledByItsFirstVerifiedRefresh() async throws {
        let registration = try register()
        for (answer, expected) in [
            (ScriptedExchange.Answer.receipt(try refreshed(registration, metric: 1)), DeviceTier?.some(.first)),
            (.receipt(try refreshed(registration, metric: 12)), .repeat),
            (.notModified, nil),
        ] as [(ScriptedExchange.Answer, DeviceTier?)] {
            let store = InMemoryRiskStore()
            store.bind(
                Self.deviceID,
                keyId: registration.key.keyId,
                receipt: registration.receiptBytes,
                unverified: false
            )
            let tiers = InMemoryDeviceTierStore()
            let marks = FakeRefreshMarks()
            let recorded = await refresher(ScriptedExchange([answer]), store: store, tiers: tiers, marks: marks)
                .refresh(
                    deviceID: Self.deviceID,
                    key: storedKey(registration, risk: StoredRisk(receipt: registration.receiptBytes)),
                    storedTier: nil,
                    deviceCheckToken: nil,
                    now: Self.now
                )
            #expect(recorded?.tier == expected)
            #expect(try await tiers.storedTier(deviceID: Self.deviceID) == expected)
            if expected == .first { #expect(tiers.reason(deviceID: Self.deviceID) == "tier.legacy_key") }
            // No mark is claimed for a legacy key.
            #expect(marks.read.isEmpty)
        }
    }
}
