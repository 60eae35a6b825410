import AppTestSupport
import AttestCore
import CivilTime
import DynamoDB
import FoundationEssentials
import TestSupport
import Testing
import WireContract

/// Layer 1 against a client that attacks the store instead of the proof (docs/gate.md, "Failure policy" and
/// "Rows and writes"): a store failure while spending a challenge admits only a proof that verifies, and a
/// refused call's replacement challenge counts against the device's daily issue bound.
@Suite(.enabled(if: spendFlowMoto != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct ChallengeAbuseTests {
    static func app(_ upstream: Upstream) async throws -> GateTestApp {
        try await GateTestApp(
            routes: GateTestApp.routes([SpendFlowTests.enforceRoute()]),
            settings: ["AI_DAILY_CALL_CEILING": "1000", "UPSTREAM_URL": upstream.server.baseURL]
        )
    }

    /// Headers that look like an App Attest proof and prove nothing.
    static func forged(_ id: String, challenge: String) -> [String: String] {
        [
            WireHeader.deviceID.name: id, WireHeader.challenge.name: challenge,
            WireHeader.appAttestKeyID.name: Bytes.base64(Array(repeating: 1, count: 32)),
            WireHeader.appAttestAssertion.name: Bytes.base64(Array(repeating: 2, count: 64)),
            WireHeader.clientData.name: ClientData(challenge: challenge, method: "POST", path: "/v1/generate", body: [])
                .header,
        ]
    }

    /// Spending a challenge fails (the client heated its own partition): headers that prove nothing are
    /// refused, whatever the route's onUnavailable; a genuine device is our outage, which the route's
    /// policy (`allow` by default) decides.
    @Test func aStoreFailureWhileSpendingAdmitsOnlyAProofThatVerifies() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream)
        try await app.test { client in
            let id = randomDeviceID()
            let challenge = try await client.challenge(deviceID: id)
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            let genuineChallenge = try await client.challenge(deviceID: device.deviceID)
            app.transport.refuse { operation, body in
                operation == "UpdateItem" && String(decoding: body, as: UTF8.self).contains("ATTEST_CHALLENGE#")
            }
            let forged = try await client.execute("/v1/generate", headers: Self.forged(id, challenge: challenge))
            #expect(forged.status == 403 && forged.error == "attestation_required")
            let headers = try client.proofHeaders(&device, path: "/v1/generate", body: [], challenge: genuineChallenge)
            let genuine = try await client.execute("/v1/generate", headers: headers)
            #expect(genuine.status == 200)
            app.transport.refuse(when: nil)
        }
        let lines = app.decisions
        #expect(lines.contains { $0["outcome"] == "rejected" && $0["status"] == .int(403) })
        #expect(lines.contains { $0["outcome"] == "unavailable" && $0["status"] == .int(200) })
        #expect(upstream.served == 1)
    }

    /// Refused calls that each spend a challenge and get the next one: past the device's daily bound the
    /// next challenge is withheld, so the loop ends.
    @Test func refusedCallsReplacingTheirChallengeStopAtTheDailyBound() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream)
        let id = randomDeviceID()
        let today = LocalCalendar.utc.day(at: app.clock.now()).iso
        let (refused, withheldAt) = try await app.test { client in
            var challenge = try await client.challenge(deviceID: id)
            // The device already used 195 of its 200 issues today.
            _ = try await app.dynamo.updateItem(
                UpdateItem(
                    table: app.table,
                    key: ["PK": .s("DEVICE#\(id)"), "SK": .s("PROFILE")],
                    update: UpdateExpression(set: ["\(name: "issued_count") = \(value: .number(195))"])
                ),
                deadline: .after(.seconds(5))
            )
            var refused = 0
            var withheldAt: Int?
            for attempt in 1...12 {
                let response = try await client.execute("/v1/generate", headers: Self.forged(id, challenge: challenge))
                #expect(response.status == 403)
                refused += 1
                guard let next = response.header(WireHeader.nextChallenge.key) else {
                    withheldAt = attempt
                    break
                }
                challenge = next
            }
            return (refused, withheldAt)
        }
        // 195 + 5 replacements reach the bound of 200: the sixth refused call gets no next challenge.
        #expect(withheldAt == 6, "refused \(refused)")
        let row = try await app.row("DEVICE#\(id)", "PROFILE")
        #expect(row?["issued_count"]?.intValue == 200)
        #expect(row?["issued_day"]?.stringValue == today)
    }
}
