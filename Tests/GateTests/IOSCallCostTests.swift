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

/// A genuine iOS metered call end to end on moto, and what it costs the store (issue 5's target:
/// at most 6 DynamoDB requests, at most 4 of them one after another, the next challenge included).
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct IOSCallCostTests {
    let device = "0b9f8c1e-3a4d-4e5f-8a9b-1c2d3e4f5a6b"

    @Test func aGenuineAssertedCallCostsAtMostSixRequestsInFourSteps() async throws {
        let now = Date()
        let table = try await MotoTable.make()
        let authority = try SimulatedAppleCA(now: now)
        let phone = SimulatedDevice(
            teamId: "TEAM123456",
            bundleId: "com.example.cards",
            environment: .development,
            authority: authority
        )
        let verifier = AppAttestVerifier(
            teamId: "TEAM123456",
            bundleIds: ["com.example.cards"],
            environment: .development,
            trust: .synthetic(root: authority.root)
        )
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

        let call = MeteredCall(
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
            spendGuard: SpendGuard(store: DynamoCeilingStore(table: table), dailyLimit: 100, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: "application/json", body: Array("{}".utf8)))
        )
        let route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")

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
            let requests = try #require(line["ddbRequests"]?.intValue)
            let sequential = try #require(line["ddbSequential"]?.intValue)
            #expect(requests <= 6, "DynamoDB requests per iOS metered call")
            #expect(sequential <= 4, "DynamoDB requests in sequence per iOS metered call")
            challenge = try #require(response.headers[WireHeader.nextChallenge.key].flatMap { Bytes.fromBase64($0) })
        }
    }
}
