import AWSJSON
import AttestCore
import CivilTime
import Crypto
import DynamoDB
import FoundationEssentials
import HTTPClient
import Synchronization
import TestSupport
import Testing
import WireContract

@testable import Gate

/// Answers every metered call with a fixed report (a profile read on the way, a held key, a recorded tier).
struct ReportingEvidence: EvidenceSource {
    let report: EvidenceReport
    func evaluate(request: MeteredRequest, deviceID: String, route: MeteredRoute, now: Date) async -> EvidenceReport {
        report
    }
}

/// Metering by device tier (docs/gate.md "Device tiers"): the allowance a device ID gets from its tier, the
/// tier and its reason on the decision line.
@Suite struct MeteredTierTests {
    let noon = Date(timeIntervalSince1970: 1_796_040_000)
    static let today = "2026-11-30"
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
        let sink = CapturingLogSink()
        var logger: Logger { Logger(sink: sink) }
    }

    func stack(
        _ report: EvidenceReport,
        tiering: DeviceTiering = DeviceTiering(),
        renewal marks: (any RefreshMarks)? = nil
    ) -> Stack {
        let tiers = InMemoryDeviceTierStore()
        let challenges = InMemoryChallengeStore(tiers: tiers)
        var call = MeteredCall(
            environment: "development",
            evidence: ReportingEvidence(report: report),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: InMemoryAllowanceStore(), calendar: .utc),
            ceilingGuard: CeilingGuard(store: InMemoryCeilingStore(), dailyLimit: 100, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: Array("{}".utf8)))
        )
        call.tiering = tiering
        call.markRenewal = marks.map { MarkRenewal(marks: $0, tiers: tiers, calendar: .utc) }
        return Stack(call: call, tiers: tiers)
    }

    static let appAttest = EvidenceReport(evidence: .genuine(proof: .appAttest), spentChallenge: true)
    static let play = EvidenceReport(evidence: .genuine(proof: .playIntegrity), spentChallenge: true)

    func request(user: String? = nil) -> MeteredRequest {
        MeteredRequest(
            method: "POST",
            rawPath: "/v1/generate",
            headers: user == nil ? [WireHeader.deviceID.key: device] : [:],
            body: [],
            userSub: user
        )
    }

    /// Calls until the allowance refuses (at most 10): the statuses, and the last decision line.
    func calls(
        _ s: Stack,
        route: MeteredRoute? = nil,
        user: String? = nil
    ) async -> (admitted: Int, line: JSONValue?) {
        var admitted = 0
        var line: JSONValue?
        for _ in 0..<10 {
            let response = await s.call.handle(
                request(user: user),
                route: route ?? self.route,
                now: noon,
                deadline: .after(.seconds(5)),
                logger: s.logger
            )
            if admitted == 0 { line = s.sink.objects.last }
            guard response.status == 200 else { break }
            admitted += 1
        }
        return (admitted, line)
    }

    @Test func aRepeatDeviceIDGetsTheRepeatAllowanceAndItsTierOnTheLine() async throws {
        let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true))
        _ = try await s.tiers.recordTier(deviceID: device, tier: .repeat, reason: "mark.set", today: Self.today)
        let (admitted, line) = await calls(s)
        #expect(admitted == 1)
        #expect(line?["tier"] == .string("repeat") && line?["tierReason"] == .string("mark.set"))
    }

    @Test func aFirstDeviceIDGetsTheRoutesAllowance() async throws {
        let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true))
        _ = try await s.tiers.recordTier(deviceID: device, tier: .first, reason: "mark.clear", today: Self.today)
        let (admitted, line) = await calls(s)
        #expect(admitted == 3)
        #expect(line?["tier"] == .string("first") && line?["tierReason"] == .string("mark.clear"))
    }

    /// `unknown` follows the route's `onUnknownDevice`: `repeat` by default, `first` when the route opts in.
    @Test(arguments: [(UnknownDevicePolicy.repeat, 1), (.first, 3)])
    func anUnknownDeviceIDFollowsOnUnknownDevice(policy: UnknownDevicePolicy, allowed: Int) async throws {
        let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true))
        _ = try await s.tiers.recordTier(
            deviceID: device,
            tier: .unknown,
            reason: "mark.unavailable",
            today: Self.today
        )
        var route = self.route
        route.onUnknownDevice = policy
        let (admitted, line) = await calls(s, route: route)
        #expect(admitted == allowed)
        #expect(line?["tier"] == .string("unknown") && line?["tierReason"] == .string("mark.unavailable"))
    }

    /// The default route meters `unknown` as `repeat`, and `repeat` gets no calls at all.
    @Test func byDefaultAnUnknownOrRepeatDeviceIDGetsNoFreeCalls() async throws {
        let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true))
        _ = try await s.tiers.recordTier(
            deviceID: device,
            tier: .unknown,
            reason: "mark.unavailable",
            today: Self.today
        )
        let route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")
        let (admitted, _) = await calls(s, route: route)
        #expect(admitted == 0)
    }

    /// Tiering off for the call's platform: a device ID without a stored tier keeps today's allowance.
    @Test(arguments: [
        (appAttest, DeviceTiering()), (play, DeviceTiering()), (play, DeviceTiering(marks: true)),
        (appAttest, DeviceTiering(recall: true)),
        (EvidenceReport(evidence: .absent), DeviceTiering(marks: true, recall: true)),
    ])
    func tieringOffForThePlatformKeepsTodaysAllowance(report: EvidenceReport, tiering: DeviceTiering) async {
        let s = stack(report, tiering: tiering)
        var route = self.route
        route.mode = .monitor
        let (admitted, line) = await calls(s, route: route)
        #expect(admitted == 3)
        #expect(line?["tier"] == .string("first") && line?["tierReason"] == .string("tier.off"))
    }

    /// Tiering on and no stored tier: a key registered before marks were turned on is `first` (as
    /// `unknown`, the default `onUnknownDevice` would demote the installed base); anything else is `repeat`
    /// (request content never yields `first`).
    @Test func tieringOnWithoutAStoredTierIsFirstForALegacyKeyAndRepeatOtherwise() async {
        var legacy = Self.appAttest
        legacy.attestedKey = true
        let held = await calls(stack(legacy, tiering: DeviceTiering(marks: true)), route: route)
        #expect(held.admitted == 3)
        #expect(held.line?["tier"] == .string("first") && held.line?["tierReason"] == .string("tier.legacy_key"))
        let android = await calls(stack(Self.play, tiering: DeviceTiering(recall: true)))
        #expect(android.admitted == 1)
        #expect(android.line?["tier"] == .string("repeat") && android.line?["tierReason"] == .string("tier.unproven"))
    }

    /// A `first` expires with the mark that made it (DEVICE_MARK_MONTHS). Without a DeviceCheck
    /// token it is metered as `unknown` (the route's `onUnknownDevice`); with one the mark is read again: a
    /// clear mark renews the `first` with this month; a mark in force (another device ID on the phone took the
    /// free tier since, or its own at a month's edge) keeps it expired, `unknown`, and writes nothing. Within
    /// the window nothing is asked.
    @Test func anExpiredFirstIsUnknownWithoutATokenAndSettledByTheMarkWithOne() async throws {
        let token = Bytes.base64(Array(repeating: UInt8(3), count: 64))
        func tokened() -> MeteredRequest {
            MeteredRequest(
                method: "POST",
                rawPath: "/v1/generate",
                headers: [WireHeader.deviceID.key: device, WireHeader.deviceCheckToken.key: token],
                body: []
            )
        }
        func seeded(_ marks: FakeRefreshMarks?, marked: String) async throws -> Stack {
            let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true, markMonths: 3), renewal: marks)
            _ = try await s.tiers.recordTier(
                deviceID: device,
                tier: .first,
                reason: "mark.clear",
                today: "2026-07-01",
                marked: marked
            )
            return s
        }
        // No token: unknown, metered as repeat (repeatAllowance laterDays 0).
        let bare = try await seeded(FakeRefreshMarks(mark: .clear), marked: "2026-07")
        let expired = await calls(bare)
        #expect(expired.admitted == 0)
        #expect(expired.line?["tier"] == .string("unknown"))
        #expect(expired.line?["tierReason"] == .string("tier.mark_expired"))
        // A token and a clear mark: renewed, the route's allowance (laterDays 2).
        for (mark, tier, reason, marked, admitted) in [
            (MarkSignal.clear, DeviceTier.first, "mark.renewed", "2026-11", 2),
            (.set, .unknown, "tier.mark_expired", "2026-07", 0),
        ] {
            let marks = FakeRefreshMarks(mark: mark)
            let s = try await seeded(marks, marked: "2026-07")
            let response = await s.call.handle(
                tokened(),
                route: route,
                now: noon,
                deadline: .after(.seconds(5)),
                logger: s.logger
            )
            #expect(response.status == (admitted > 0 ? 200 : 429))
            let line = s.sink.objects.last
            #expect(line?["tier"] == .string(tier.rawValue) && line?["tierReason"] == .string(reason))
            #expect(try await s.tiers.storedTier(deviceID: device) == .first)
            #expect(s.tiers.marked(deviceID: device) == marked)
            #expect(marks.read == [token])
        }
        // Within the window: first, and Apple is not asked.
        let marks = FakeRefreshMarks(mark: .set)
        let young = try await seeded(marks, marked: "2026-08")
        #expect(await calls(young).admitted == 2)
        #expect(marks.read.isEmpty)
    }

    /// The profile the key lookup read on the way (iOS) decides without a profile write; a tier this call's
    /// evaluation recorded (a risk flag) overrides it.
    @Test func theProfileReadByTheEvaluationAndATierItRecordedAreUsed() async {
        var read = Self.appAttest
        read.profile = DeviceProfile(firstSeen: Self.today, tier: .repeat, tierReason: "mark.set")
        let s = stack(read, tiering: DeviceTiering(marks: true))
        let (admitted, line) = await calls(s)
        #expect(admitted == 1 && line?["tier"] == .string("repeat"))
        #expect(s.tiers.reason(deviceID: device) == nil)  // nothing written to the store's profile row

        var flagged = Self.appAttest
        flagged.profile = DeviceProfile(firstSeen: Self.today, tier: .first, tierReason: "mark.clear")
        flagged.recordedTier = RecordedTier(tier: .repeat, reason: "risk.flagged")
        let refreshed = await calls(stack(flagged, tiering: DeviceTiering(marks: true)))
        #expect(refreshed.admitted == 1)
        #expect(
            refreshed.line?["tier"] == .string("repeat") && refreshed.line?["tierReason"] == .string("risk.flagged")
        )
    }

    /// A signed-in user has no tier: the route's allowance, and no tier on the line.
    @Test func aUserHasNoTier() async {
        let s = stack(Self.appAttest, tiering: DeviceTiering(marks: true, recall: true))
        let (admitted, line) = await calls(s, user: "user-1")
        #expect(admitted == 3)
        #expect(line?["tier"] == nil && line?["tierReason"] == nil)
    }
}

/// An Android call on moto: the tier comes back with the first-seen write's answer (`ALL_NEW`), no read of
/// its own.
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct MeteredTierMotoTests {
    @Test func anAndroidCallReadsItsTierWithTheFirstSeenWrite() async throws {
        let table = try await MotoTable.make()
        let device = "7d3c2b1a-0f9e-4d8c-8b7a-6f5e4d3c2b1a"
        let noon = Date(timeIntervalSince1970: 1_796_040_000)
        #expect(
            try await DynamoDeviceTierStore(table: table)
                .recordTier(deviceID: device, tier: .repeat, reason: "recall.set", today: "2026-11-30") == .repeat
        )
        // The call's own client records the operations it sends (as a second Lambda instance would).
        let recorder = OperationRecorder()
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": try #require(MotoTable.endpoint),
        ])
        let recorded = GateTable(
            client: DynamoDBClient(
                configuration: DynamoDBClient.configuration(environment),
                transport: recorder,
                random: SecureRandom()
            ),
            table: table.table,
            random: SecureRandom()
        )
        let challenges = DynamoChallengeStore(table: recorded)
        var call = MeteredCall(
            environment: "development",
            evidence: ReportingEvidence(report: MeteredTierTests.play),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: DynamoAllowanceStore(table: recorded), calendar: .utc),
            ceilingGuard: CeilingGuard(store: InMemoryCeilingStore(), dailyLimit: 100, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: Array("{}".utf8)))
        )
        call.tiering = DeviceTiering(recall: true)
        var route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")
        route.repeatAllowance = AllowancePolicy(firstDay: 1, laterDays: 0)
        let sink = CapturingLogSink()
        var statuses: [Int] = []
        for _ in 0..<2 {
            let response = await call.handle(
                MeteredRequest(
                    method: "POST",
                    rawPath: "/v1/generate",
                    headers: [WireHeader.deviceID.key: device],
                    body: []
                ),
                route: route,
                now: noon,
                deadline: .after(.seconds(10)),
                logger: Logger(sink: sink)
            )
            statuses.append(response.status)
        }
        #expect(statuses == [200, 429])
        let line = try #require(sink.objects.first { $0["decision"] == .string("pass") })
        #expect(line["tier"] == .string("repeat") && line["tierReason"] == .string("recall.set"))
        // The profile write (its answer carries the tier), the allowance, the next challenge: as before tiers,
        // and nothing that reads (retries under load may repeat a request, never add a read).
        #expect(Set(recorder.operations) == ["UpdateItem", "PutItem"])
        #expect(!recorder.operations.contains { $0.hasPrefix("Get") || $0.hasPrefix("BatchGet") || $0 == "Query" })
    }
}

/// Passes requests to moto and records the AWS JSON operation of each (`UpdateItem`, `GetItem`, ...).
final class OperationRecorder: HTTPTransport {
    private let base = CurlTransport()
    private let sent = Mutex<[String]>([])

    var operations: [String] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let operation = ResendingTransport.operation(of: request) { sent.withLock { $0.append(operation) } }
        return try await base.send(request)
    }
}
