import AppTestSupport
import AttestCore
import DynamoDB
import FoundationEssentials
import TestSupport
import Testing
import WireContract

/// The unproven pool (docs/gate.md, "The unproven pool") through the real router against the table: on an
/// enforce route, calls with no proof at all share a capped sub-ceiling; a failed or forged proof is still
/// refused; a genuine device does not depend on the pool; both ceilings count a pooled call.
@Suite(.enabled(if: spendFlowMoto != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct UnprovenPoolTests {
    static let pool = 7

    static func route(firstDay: Int = 2) -> JSONValue {
        .object([
            "method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "enforce",
            "upstreamPath": "/generate", "allowance": .object(["firstDay": 14, "laterDays": 9]),
            "unproven": .object(["allowance": .object(["firstDay": .int(Int64(firstDay)), "laterDays": 1])]),
        ])
    }

    static func app(upstream: Upstream, resending: Set<String> = []) async throws -> GateTestApp {
        try await GateTestApp(
            routes: GateTestApp.routes([route()]),
            settings: [
                "AI_DAILY_CALL_CEILING": "100", "AI_DAILY_UNPROVEN_CALL_CEILING": String(pool),
                "UPSTREAM_URL": upstream.server.baseURL,
            ],
            resending: resending
        )
    }

    static func poolUsed(_ app: GateTestApp) async throws -> Int {
        Int(try await app.row("AI_UNPROVEN#\(SpendFlowTests.today(app))", "TOTAL")?["calls"]?.intValue ?? 0)
    }

    /// 50 minted IDs at once: exactly the pool is served, and both ceilings count each served call once.
    @Test func fiftyMintedIDsWithNoProofShareExactlyThePool() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream)
        let statuses = try await app.test { client in
            try await withThrowingTaskGroup(of: GateTestResponse.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await client.execute(
                            "/v1/generate",
                            headers: [WireHeader.deviceID.name: randomDeviceID()],
                            body: Array("{}".utf8)
                        )
                    }
                }
                var statuses: [String: Int] = [:]
                for try await response in group {
                    statuses["\(response.status) \(response.error ?? "")", default: 0] += 1
                }
                return statuses
            }
        }
        #expect(statuses == ["200 ": Self.pool, "503 daily_budget_exhausted": 50 - Self.pool])
        #expect(upstream.served == Self.pool)
        #expect(try await Self.poolUsed(app) == Self.pool)
        // Counted in the environment's ceiling too, and the refused calls left nothing there.
        #expect(try await SpendFlowTests.ceilingUsed(app) == Self.pool)
        let served = app.decisions.filter { $0["status"] == .int(200) }
        #expect(served.count == Self.pool)
        #expect(served.allSatisfy { $0["pool"] == "unproven" && $0["proof"] == "none" && $0["decision"] == "unproven" })
    }

    /// Every write and transaction sent twice, its first answer dropped: the pool still serves exactly its
    /// budget, and a pooled call the environment's ceiling refuses gives its pool unit back once.
    @Test func thePoolIsExactUnderResends() async throws {
        let upstream = try Upstream()
        let app = try await GateTestApp(
            routes: GateTestApp.routes([Self.route()]),
            settings: [
                "AI_DAILY_CALL_CEILING": "5", "AI_DAILY_UNPROVEN_CALL_CEILING": "6",
                "UPSTREAM_URL": upstream.server.baseURL,
            ],
            resending: ["UpdateItem", "TransactWriteItems"]
        )
        let statuses = try await app.test { client in
            var statuses: [Int] = []
            for _ in 0..<10 {
                statuses.append(
                    try await client.execute(
                        "/v1/generate",
                        headers: [WireHeader.deviceID.name: randomDeviceID()],
                        body: Array("{}".utf8)
                    ).status
                )
            }
            return statuses
        }
        // The environment's ceiling (5) is below the pool's (6): past it each pooled reservation is given back.
        #expect(statuses == Array(repeating: 200, count: 5) + Array(repeating: 503, count: 5))
        #expect(try await Self.poolUsed(app) == 5)
        #expect(try await SpendFlowTests.ceilingUsed(app) == 5)
        #expect(app.transport.resent > 0)
    }

    @Test func aForgedProofIsRefusedAndAGenuineDeviceDoesNotNeedThePool() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream)
        try await app.test { client in
            // Spend the pool.
            for _ in 0..<(Self.pool + 2) {
                _ = try await client.execute(
                    "/v1/generate",
                    headers: [WireHeader.deviceID.name: randomDeviceID()],
                    body: Array("{}".utf8)
                )
            }
            // A proof that fails is never served from the pool, spent or not.
            let id = randomDeviceID()
            let challenge = try await client.challenge(deviceID: id)
            let forged = try await client.execute(
                "/v1/generate",
                headers: [
                    WireHeader.deviceID.name: id, WireHeader.challenge.name: challenge,
                    WireHeader.appAttestKeyID.name: Bytes.base64(Array(repeating: 1, count: 32)),
                    WireHeader.appAttestAssertion.name: Bytes.base64(Array(repeating: 2, count: 64)),
                ],
                body: Array("{}".utf8)
            )
            #expect(forged.status == 403 && forged.error == "attestation_required")
            // A genuine iPhone is served by the route's allowance with the pool spent.
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            let genuine = try await client.metered(&device)
            #expect(genuine.status == 200 && genuine.header(WireHeader.quotaRemaining.key) == "13")
        }
        #expect(try await Self.poolUsed(app) == Self.pool)
        #expect(try await SpendFlowTests.ceilingUsed(app) == Self.pool + 1)
    }

    @Test func eachMintedIDIsMeteredByThePoolsAllowance() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream)
        let id = randomDeviceID()
        let statuses = try await app.test { client in
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(
                    try await client.execute(
                        "/v1/generate",
                        headers: [WireHeader.deviceID.name: id],
                        body: Array("{}".utf8)
                    ).status
                )
            }
            return statuses
        }
        #expect(statuses == [200, 200, 429])
        #expect(try await Self.poolUsed(app) == 2)
    }
}
