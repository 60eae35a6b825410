import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

extension BootstrapTests {
    /// The real bootstrap reads `repeatAllowance` and `onUnknownDevice` from `ROUTES` and meters a device ID by
    /// the tier on its `PROFILE` row (read with the first-seen write's answer), with device tiers off for
    /// every platform: a stored tier still decides, a device ID without one is `first` (docs/gate.md,
    /// "Device tiers").
    @Test func aStoredRepeatTierGetsTheRoutesRepeatAllowanceThroughTheBootstrap() async throws {
        let upstream = try Self.echoUpstream()
        let routes = #"""
            [{"method":"POST","path":"/v1/generate","feature":"generation","allowance":{"firstDay":3,"laterDays":3},
              "repeatAllowance":{"firstDay":1,"laterDays":1},"onUnknownDevice":"first","upstreamPath":"/generate"}]
            """#
        let environment = await Self.environment(upstream, ["ROUTES": routes])
        let repeated = UUID().uuidString.lowercased()
        let fresh = UUID().uuidString.lowercased()
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(
                try AWSEnvironment([
                    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                    "DYNAMODB_ENDPOINT": Self.dynamoDBEndpoint ?? "",
                ])
            ),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        try await client.putItem(
            PutItem(
                table: Table(name: Self.table),
                item: [
                    "PK": .s("DEVICE#\(repeated)"), "SK": .s("PROFILE"), "tier": .s("repeat"),
                    "tier_reason": .s("mark.set"), "first_seen": .s("2026-01-01"),
                ]
            ),
            deadline: .after(.seconds(10))
        )
        let harness = try await LocalHarness(environment: environment)
        func call(_ device: String) async throws -> HTTPResponse {
            try await harness.request(
                "POST",
                "/v1/generate",
                headers: [HTTPHeader(WireHeader.deviceID.name, device)],
                body: "{}"
            )
        }
        let first = try await call(repeated)
        let second = try await call(repeated)
        #expect(
            first.status == 200 && first.header(WireHeader.quotaRemaining.name) == "0",
            "\(first.status) \(String(decoding: first.body, as: UTF8.self))"
        )
        #expect(second.status == 429)
        let other = try await call(fresh)
        #expect(other.status == 200 && other.header(WireHeader.quotaRemaining.name) == "2")

        let logs = try await harness.get("/logs").arrayValue ?? []
        let lines = logs.compactMap { $0["line"]?.stringValue }.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        let decisions = lines.filter { $0["logger"] == .string("attestgate.decision") }
        let tiers = decisions.map { [$0["tier"], $0["tierReason"]] }
        #expect(
            tiers == [
                [.string("repeat"), .string("mark.set")], [.string("repeat"), .string("mark.set")],
                [.string("first"), .string("tier.off")],
            ]
        )
    }
}
