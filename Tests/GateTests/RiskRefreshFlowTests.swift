import AppAttest
import AttestCore
import CivilTime
import Crypto
import FoundationEssentials
import SimulatedDevice
import TestSupport
import Testing
import WireContract

@testable import Gate

/// The fraud-risk metric's daily refresh inline on genuine iOS metered calls, on moto: due from the key row
/// alone, bounded in time, flagging the device; a call that is not due costs no request and no Apple call.
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct RiskRefreshFlowTests {
    let device = "1c9f8c1e-3a4d-4e5f-8a9b-1c2d3e4f5a6b"

    @Test func aDueReceiptIsRefreshedOnceADayAndAHighMetricFlagsTheDevice() async throws {
        let now = Date()
        let table = try await MotoTable.make()
        let apple = try SyntheticApple(now: now)
        let (phone, verifier) = (apple.phone, apple.verifier)
        let challenges = DynamoChallengeStore(table: table)
        let keys = DynamoAppAttestKeyStore(table: table)
        let logger = Logger(sink: CapturingLogSink())

        var key = try SimulatedAppAttestKey()
        let issued = try await challenges.issue(deviceID: device, replacingSpent: false, now: now)
        let attestation = try phone.attest(key, clientDataHash: Digest.sha256(issued.bytes), now: now)
        let registered = await KeyRegistration(challenges: challenges, keys: keys, verifier: verifier).handle(
            deviceHeader: device,
            body: JSONValue.object([
                "keyId": .string(Bytes.base64(key.keyId)), "attestation": .string(Bytes.base64(attestation)),
                "challenge": .string(Bytes.base64(issued.bytes)),
            ]).serializedBytes,
            now: now,
            logger: logger
        )
        #expect(registered.status == 200)
        let attested = try verifier.verifyRegistration(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: Digest.sha256(issued.bytes),
            now: now
        )
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.riskMetric = "12"
        let answer = try phone.refreshedReceipt(
            credentialCertificateDER: attested.key.credentialCertificateDER,
            now: now,
            options: options
        )
        let exchange = ScriptedExchange([.receipt(answer)])
        let tiers = DynamoDeviceTierStore(table: table)
        _ = try await tiers.recordTier(deviceID: device, tier: .first, reason: "mark.clear", today: "d")
        let marks = FakeRefreshMarks()
        let refresh = ReceiptRiskRefresh(
            metric: ReceiptRiskMetric(
                exchanger: exchange,
                verifier: verifier,
                store: keys,
                budget: BudgetCounter(),
                metricMax: 5,
                logger: logger
            ),
            tiers: tiers,
            marks: marks,
            calendar: .utc,
            logger: logger
        )
        let sink = CapturingLogSink()
        func call(risk: (any RiskRefreshing)?) -> MeteredCall {
            MeteredCall(
                environment: "development",
                evidence: LayerOneEvidence(
                    challenges: challenges,
                    keys: keys,
                    appAttest: verifier,
                    play: nil,
                    deviceCheck: nil,
                    risk: risk,
                    logger: logger
                ),
                profiles: challenges,
                challenges: challenges,
                allowances: AllowanceMeter(store: DynamoAllowanceStore(table: table), calendar: .utc),
                ceilingGuard: CeilingGuard(store: DynamoCeilingStore(table: table), dailyLimit: 100, calendar: .utc),
                upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: []))
            )
        }
        let route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")
        var challenge = try await challenges.issue(deviceID: device, replacingSpent: false, now: now).bytes
        /// One genuine call; returns its decision line.
        func metered(_ call: MeteredCall, status: Int = 200) async throws -> JSONValue {
            let body = Array(#"{"photo":"page-1"}"#.utf8)
            let clientData = ClientData(
                challenge: Bytes.base64(challenge),
                method: "POST",
                path: "/v1/generate",
                body: body
            )
            let assertion = try phone.assert(&key, clientDataHash: clientData.appAttestClientDataHash)
            let request = MeteredRequest(
                method: "POST",
                rawPath: "/v1/generate",
                headers: [
                    WireHeader.deviceID.key: device, WireHeader.challenge.key: Bytes.base64(challenge),
                    WireHeader.appAttestKeyID.key: Bytes.base64(key.keyId),
                    WireHeader.appAttestAssertion.key: Bytes.base64(assertion),
                    WireHeader.clientData.key: clientData.header, WireHeader.deviceCheckToken.key: "dc-token",
                ],
                body: body
            )
            let response = await call.handle(
                request,
                route: route,
                now: now,
                deadline: .after(.seconds(20)),
                logger: Logger(sink: sink)
            )
            #expect(response.status == status)
            challenge = try #require(response.headers[WireHeader.nextChallenge.key].flatMap { Bytes.fromBase64($0) })
            return try #require(sink.objects.last)
        }

        let first = try await metered(call(risk: nil))
        #expect(first["tier"] == .string("first"))
        // Registered without a verified metric: due on the first call, exchanged within a second; the metric
        // of 12 flags the device, and this very call is metered as repeat (repeatAllowance 0: 429).
        let flagged = try await metered(call(risk: refresh), status: 429)
        #expect(flagged["tier"] == .string("repeat"))
        #expect(flagged["tierReason"] == .string("risk.flagged"))
        #expect(exchange.calls.count == 1)
        #expect(exchange.calls.first?.receipt == attested.receiptBytes)
        #expect(try #require(exchange.calls.first?.allowed) <= .seconds(1))
        #expect(try await tiers.storedTier(deviceID: device) == .repeat)
        #expect(marks.flagged == ["dc-token"])
        let stored = try #require(try await keys.lookup(deviceID: device).key?.risk)
        #expect(stored.metric == 12 && stored.receipt == answer)
        #expect(stored.exchangedDay == LocalCalendar.utc.day(at: now).iso)
        // Exchanged today: not due, no Apple call and no request more than the same call without the refresh.
        let notDue = try await metered(call(risk: refresh), status: 429)
        let without = try await metered(call(risk: nil), status: 429)
        #expect(notDue["tier"] == .string("repeat"))
        #expect(notDue["ddbRequests"] == without["ddbRequests"])
        #expect(exchange.calls.count == 1)
    }
}
