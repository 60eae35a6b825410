import AttestCore
import DynamoDB
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

/// Layer 1 against a client that attacks the store instead of the proof, through the real `bootstrap` and
/// the DynamoDB stand-in (docs/gate.md, "Failure policy" and "Challenges outside the metered path").
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct ChallengeAbuseBootstrapTests {
    static func start(_ standIn: DynamoStandInProcess, _ upstream: BootstrapTests.Upstream) async throws -> LocalHarness
    {
        let route =
            #"[{"method":"POST","path":"/v1/generate","feature":"generation","mode":"enforce","#
            + #""upstreamPath":"/generate","allowance":{"firstDay":5,"laterDays":5}}]"#
        return try await LocalHarness(
            environment: [
                "ATTESTGATE_ENV": "development", "TABLE_NAME": standIn.table.name, "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": standIn.endpoint, "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "UPSTREAM_URL": upstream.server.baseURL,
                "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "warning", "ROUTES": route,
                "APPLE_TEAM_ID": "TEAM123456", "APPLE_BUNDLE_IDS": "com.example.app",
            ],
            deadlineMs: 3_000
        )
    }

    static func challenge(_ harness: LocalHarness, _ id: String) async throws -> String {
        let issued = try await harness.request(
            "POST",
            "/v1/attest/challenge",
            headers: [HTTPHeader(WireHeader.deviceID.name, id)]
        )
        return try #require(try JSONValue.parse(issued.body)["challenge"]?.stringValue)
    }

    /// Headers that look like an App Attest proof and prove nothing.
    static func forged(_ id: String, _ challenge: String) -> [HTTPHeader] {
        [
            HTTPHeader(WireHeader.deviceID.name, id), HTTPHeader(WireHeader.challenge.name, challenge),
            HTTPHeader(WireHeader.appAttestKeyID.name, Bytes.base64(Array(repeating: 1, count: 32))),
            HTTPHeader(WireHeader.appAttestAssertion.name, Bytes.base64(Array(repeating: 2, count: 64))),
            HTTPHeader(
                WireHeader.clientData.name,
                ClientData(challenge: challenge, method: "POST", path: "/v1/generate", body: Array("{}".utf8)).header
            ),
        ]
    }

    /// The device's challenge rows are throttled on every write (the client heated its own partition): the
    /// spend fails until the deadline, and headers that prove nothing are still refused, as is a call with
    /// no proof at all; the default onUnavailable (allow) never sees them.
    @Test func aHotChallengePartitionTurnsNoProofIntoNothing() async throws {
        let standIn = try await DynamoStandInProcess([])
        let upstream = try BootstrapTests.echoUpstream()
        let harness = try await Self.start(standIn, upstream)
        let id = UUID().uuidString.lowercased()
        let challenge = try await Self.challenge(harness, id)
        try await standIn.heat("ATTEST_CHALLENGE#")
        let forged = try await harness.request("POST", "/v1/generate", headers: Self.forged(id, challenge), body: "{}")
        #expect(forged.status == 403, "\(String(decoding: forged.body, as: UTF8.self))")
        let bare = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader(WireHeader.deviceID.name, id)],
            body: "{}"
        )
        #expect(bare.status == 403)
        #expect(upstream.server.requests.isEmpty)
        #expect((try await standIn.stats())["throttled"]?.intValue ?? 0 > 0)
    }

    /// Refused calls that each spend a challenge and use the next one: past the device's daily bound (200;
    /// 195 already used today) the answer carries no next challenge.
    @Test func refusedCallsStopGettingChallengesAtTheDailyBound() async throws {
        let standIn = try await DynamoStandInProcess([])
        let upstream = try BootstrapTests.echoUpstream()
        let harness = try await Self.start(standIn, upstream)
        let id = UUID().uuidString.lowercased()
        var challenge = try await Self.challenge(harness, id)
        _ = try await standIn.client.updateItem(
            UpdateItem(
                table: standIn.table,
                key: ["PK": .s("DEVICE#\(id)"), "SK": .s("PROFILE")],
                update: UpdateExpression(set: ["\(name: "issued_count") = \(value: .number(195))"])
            ),
            deadline: .after(.seconds(5))
        )
        var withheldAt: Int?
        for attempt in 1...12 where withheldAt == nil {
            let refused = try await harness.request(
                "POST",
                "/v1/generate",
                headers: Self.forged(id, challenge),
                body: "{}"
            )
            #expect(refused.status == 403)
            if let next = refused.header(WireHeader.nextChallenge.key) {
                challenge = next
            } else {
                withheldAt = attempt
            }
        }
        #expect(withheldAt == 6)
        // The endpoint refuses more too: the loop cannot restart there today.
        let more = try await harness.request(
            "POST",
            "/v1/attest/challenge",
            headers: [HTTPHeader(WireHeader.deviceID.name, id)]
        )
        #expect(more.status == 429)
    }
}
