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

/// A genuine iOS metered call end to end on moto, and what it costs the store (docs/gate.md:
/// at most 6 DynamoDB requests, at most 4 of them one after another, the next challenge included).
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct IOSCallCostTests {
    let device = "0b9f8c1e-3a4d-4e5f-8a9b-1c2d3e4f5a6b"

    /// With device marks on, whatever the stored tier (none: a key from before marks, metered `first`), the tier is
    /// read by the key lookup's own request and meters the call: the cost stays the same.
    @Test(arguments: [nil, DeviceTier.first, .repeat])
    func aGenuineAssertedCallCostsAtMostSixRequestsInFourSteps(stored: DeviceTier?) async throws {
        let now = Date()
        let table = try await MotoTable.make()
        let apple = try SyntheticApple(now: now)
        let (phone, verifier) = (apple.phone, apple.verifier)
        let challenges = DynamoChallengeStore(table: table)
        let keys = DynamoAppAttestKeyStore(table: table)
        let sink = CapturingLogSink()
        let logger = Logger(sink: sink)

        // Registration: challenge, attestation over SHA-256(challenge), bind.
        var key = try SimulatedAppAttestKey()
        let registration = try await challenges.issue(deviceID: device, replacingSpent: false, now: now)
        let attestation = try phone.attest(key, clientDataHash: Digest.sha256(registration.bytes), now: now)
        let registered = await KeyRegistration(challenges: challenges, keys: keys, verifier: verifier).handle(
            deviceHeader: device,
            body: JSONValue.object([
                "keyId": .string(Bytes.base64(key.keyId)), "attestation": .string(Bytes.base64(attestation)),
                "challenge": .string(Bytes.base64(registration.bytes)),
            ]).serializedBytes,
            now: now,
            logger: logger
        )
        #expect(registered.status == 200 && registered.body == Array(#"{"binding":"bound"}"#.utf8))
        if let stored {
            let recorded = try await DynamoDeviceTierStore(table: table)
                .recordTier(
                    deviceID: device,
                    tier: stored,
                    reason: "mark.test",
                    today: LocalCalendar.utc.day(at: now).iso
                )
            #expect(recorded == stored)
        }

        var call = MeteredCall(
            environment: "development",
            evidence: LayerOneEvidence(
                challenges: challenges,
                keys: keys,
                appAttest: verifier,
                play: nil,
                deviceCheck: nil,
                logger: logger
            ),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: DynamoAllowanceStore(table: table), calendar: .utc),
            ceilingGuard: CeilingGuard(store: DynamoCeilingStore(table: table), dailyLimit: 100, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: Array("{}".utf8)))
        )
        call.tiering = DeviceTiering(marks: true)
        var route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")
        route.repeatAllowance = AllowancePolicy(firstDay: 5, laterDays: 5)
        // first (and a key from before marks): the route's allowance (14 on the first day); repeat: 5.
        let metered = stored ?? .first
        var remaining = metered == .first ? 14 : 5

        var challenge = try await challenges.issue(deviceID: device, replacingSpent: false, now: now).bytes
        for _ in 0..<3 {
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
                    WireHeader.clientData.key: clientData.header,
                ],
                body: body
            )
            let response = await call.handle(
                request,
                route: route,
                now: now,
                deadline: .after(.seconds(20)),
                logger: logger
            )
            #expect(response.status == 200)
            let line = try #require(sink.objects.last)
            #expect(line["decision"] == .string("pass"))
            #expect(line["tier"] == .string(metered.rawValue))
            #expect(line["tierReason"] == .string(stored == nil ? "tier.legacy_key" : "mark.test"))
            remaining -= 1
            #expect(response.headers[WireHeader.quotaRemaining.key] == String(remaining))
            let requests = try #require(line["ddbRequests"]?.intValue)
            let sequential = try #require(line["ddbSequential"]?.intValue)
            #expect(requests <= 6, "DynamoDB requests per iOS metered call")
            #expect(sequential <= 4, "DynamoDB requests in sequence per iOS metered call")
            challenge = try #require(response.headers[WireHeader.nextChallenge.key].flatMap { Bytes.fromBase64($0) })
        }
    }
}
