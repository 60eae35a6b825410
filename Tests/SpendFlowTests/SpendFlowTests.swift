import AppTestSupport
import AttestCore
import CivilTime
import DynamoDB
import FoundationEssentials
import Glibc
import Synchronization
import TestSupport
import Testing
import WireContract

let spendFlowMoto = LocalDynamoDB.endpoint

/// A fake paid AI API that can be told to fail, and counts what it served.
final class Upstream: Sendable {
    final class State: Sendable {
        let failing = Atomic<Bool>(false)
        let served = Atomic<Int>(0)
    }

    let state = State()
    let server: LoopbackHTTPServer
    var served: Int { state.served.load(ordering: .sequentiallyConsistent) }
    func fail(_ failing: Bool) { state.failing.store(failing, ordering: .sequentiallyConsistent) }

    init() throws {
        let state = self.state
        server = try LoopbackHTTPServer { _ in
            if state.failing.load(ordering: .sequentiallyConsistent) {
                return .respond(status: 503, body: Array(#"{"error":"overloaded"}"#.utf8))
            }
            state.served.add(1, ordering: .sequentiallyConsistent)
            return .respond(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: Array(#"{"cards":[]}"#.utf8)
            )
        }
    }
}

/// Layers 2 and 3 and the gate through the real router, against moto and a fake upstream (docs/gate.md):
/// each layer holds when the others are beaten.
@Suite(.enabled(if: spendFlowMoto != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct SpendFlowTests {
    static let monitorRoute = JSONValue.object([
        "method": "POST", "path": "/v1/tutor/{deckId}/{cardId}", "feature": "tutor", "mode": "monitor",
        "upstreamPath": "/tutor", "allowance": .object(["firstDay": 50, "laterDays": 50]),
    ])

    static func enforceRoute(firstDay: Int = 14) -> JSONValue {
        .object([
            "method": "POST", "path": "/v1/generate", "feature": "generation", "mode": "enforce",
            "upstreamPath": "/generate",
            "allowance": .object(["firstDay": .int(Int64(firstDay)), "laterDays": 9]),
        ])
    }

    static func app(
        upstream: Upstream,
        ceiling: Int,
        routes: [JSONValue] = [monitorRoute, enforceRoute()],
        resending: Set<String> = []
    ) async throws -> GateTestApp {
        try await GateTestApp(
            routes: GateTestApp.routes(routes),
            settings: [
                "AI_DAILY_CALL_CEILING": String(ceiling), "UPSTREAM_URL": upstream.server.baseURL,
                "PAID_CLAIM": "plan=paid",
            ],
            resending: resending
        )
    }

    static func today(_ app: GateTestApp) -> String { LocalCalendar.utc.day(at: app.clock.now()).iso }

    static func ceilingUsed(_ app: GateTestApp) async throws -> Int {
        Int(try await app.row("AI_BUDGET#\(today(app))", "TOTAL")?["calls"]?.intValue ?? 0)
    }

    static func allowanceUsed(_ app: GateTestApp, device: String, feature: String) async throws -> Int {
        Int(try await app.row("DEVICE#\(device)", "QUOTA#\(feature)#\(today(app))")?["count"]?.intValue ?? 0)
    }

    @Test func sixMintedIDsGetNothingInEnforceAndAreLoggedAsWouldBlockInMonitor() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream, ceiling: 100)
        try await app.test { client in
            for _ in 0..<6 {
                let id = randomDeviceID()
                let enforced = try await client.execute(
                    "/v1/generate",
                    headers: [WireHeader.deviceID.name: id],
                    body: Array("{}".utf8)
                )
                #expect(enforced.status == 403 && enforced.error == "attestation_required")
                let monitored = try await client.execute(
                    "/v1/tutor/d1/c1",
                    headers: [WireHeader.deviceID.name: id],
                    body: Array("{}".utf8)
                )
                #expect(monitored.status == 200)
            }
        }
        #expect(upstream.served == 6)
        let lines = app.decisions
        #expect(lines.filter { $0["route"] == "generation" && $0["block"] == .int(1) }.count == 6)
        #expect(lines.filter { $0["route"] == "tutor" && $0["would_block"] == .int(1) }.count == 6)
        // Nothing was reserved for the refused calls: no allowance rows, six ceiling units (the monitored ones).
        #expect(try await Self.ceilingUsed(app) == 6)
    }

    @Test func aGenuineDeviceStopsAtItsAllowanceWithRetryAfter() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream, ceiling: 100, routes: [Self.enforceRoute(firstDay: 3)])
        try await app.test { client in
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            for expected in ["2", "1", "0"] {
                let response = try await client.metered(&device)
                #expect(response.status == 200 && response.header(WireHeader.quotaRemaining.key) == expected)
            }
            let refused = try await client.metered(&device)
            #expect(refused.status == 429 && refused.error == "quota_exhausted")
            #expect(Int(refused.header("retry-after") ?? "") ?? 0 > 0)
            #expect(refused.header(WireHeader.nextChallenge.key) != nil)
        }
        #expect(upstream.served == 3)
        #expect(app.decisions.last?["quota_exhausted"] == .int(1))
    }

    @Test func manyGenuineDevicesStopAtTheCeilingWhileAPayingUserPasses() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream, ceiling: 4, routes: [Self.enforceRoute(firstDay: 3)])
        try await app.test { client in
            var statuses: [Int] = []
            for _ in 0..<3 {
                var device = try client.iosDevice()
                #expect(try await client.registerKey(device).status == 200)
                for _ in 0..<2 { statuses.append(try await client.metered(&device).status) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 4)
            #expect(statuses.filter { $0 == 503 }.count == 2)
            let spent = try await client.execute("/v1/generate", body: Array("{}".utf8), claims: ["sub": "user-free"])
            #expect(
                spent.status == 503 && spent.error == "daily_budget_exhausted" && spent.header("retry-after") != nil
            )
            let paying = try await client.execute(
                "/v1/generate",
                body: Array("{}".utf8),
                claims: ["sub": "user-paid", "plan": "paid"]
            )
            #expect(paying.status == 200)
        }
        #expect(try await Self.ceilingUsed(app) == 4)
        let lines = app.decisions
        #expect(lines.contains { $0["budget_exhausted"] == .int(1) })
        #expect(lines.filter { $0["budget_warning"] == .int(1) }.count == 1)
    }

    @Test func theCeilingIsExactUnderRaces() async throws {
        let upstream = try Upstream()
        let k = 5
        let app = try await Self.app(upstream: upstream, ceiling: k, routes: [Self.monitorRoute])
        let statuses = try await app.test { client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<(3 * k) {
                    group.addTask {
                        try await client.execute(
                            "/v1/tutor/d/c",
                            headers: [WireHeader.deviceID.name: randomDeviceID()],
                            body: Array("{}".utf8)
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == 200 }.count == k)
        #expect(statuses.filter { $0 == 503 }.count == 2 * k)
        #expect(try await Self.ceilingUsed(app) == k)
    }

    @Test(arguments: [Set<String>(), ["UpdateItem"]])
    func anUpstreamOutageGivesEveryUnitBackExactlyOnce(resending: Set<String>) async throws {
        let upstream = try Upstream()
        let app = try await Self.app(
            upstream: upstream,
            ceiling: 100,
            routes: [Self.monitorRoute],
            resending: resending
        )
        let device = randomDeviceID()
        try await app.test { client in
            upstream.fail(true)
            for _ in 0..<10 {
                let response = try await client.execute(
                    "/v1/tutor/d/c",
                    headers: [WireHeader.deviceID.name: device],
                    body: Array("{}".utf8)
                )
                #expect(response.status == 502 && response.error == "upstream_unavailable")
            }
            #expect(try await Self.ceilingUsed(app) == 0)
            #expect(try await Self.allowanceUsed(app, device: device, feature: "tutor") == 0)
            upstream.fail(false)
            let recovered = try await client.execute(
                "/v1/tutor/d/c",
                headers: [WireHeader.deviceID.name: device],
                body: Array("{}".utf8)
            )
            #expect(recovered.status == 200 && recovered.header(WireHeader.quotaRemaining.key) == "49")
        }
        #expect(try await Self.ceilingUsed(app) == 1)
        #expect(try await Self.allowanceUsed(app, device: device, feature: "tutor") == 1)
        if !resending.isEmpty { #expect(app.transport.resent >= 22) }
    }

    @Test func resentReservationsAndTheWarningFlagCountOnce() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(
            upstream: upstream,
            ceiling: 5,
            routes: [Self.monitorRoute],
            resending: ["UpdateItem"]
        )
        let device = randomDeviceID()
        try await app.test { client in
            for _ in 0..<5 {
                let response = try await client.execute(
                    "/v1/tutor/d/c",
                    headers: [WireHeader.deviceID.name: device],
                    body: Array("{}".utf8)
                )
                #expect(response.status == 200)
            }
            let over = try await client.execute(
                "/v1/tutor/d/c",
                headers: [WireHeader.deviceID.name: device],
                body: Array("{}".utf8)
            )
            #expect(over.status == 503 && over.error == "daily_budget_exhausted")
        }
        #expect(try await Self.ceilingUsed(app) == 5)
        #expect(try await Self.allowanceUsed(app, device: device, feature: "tutor") == 6)
        #expect(app.decisions.filter { $0["budget_warning"] == .int(1) }.count == 1)
        #expect(try await app.row("AI_BUDGET#\(Self.today(app))", "TOTAL")?["warned"] == .bool(true))
    }

    /// A failed claim of the 80 % warning never fails the call: both units are already taken, so the
    /// call is served; the warning is claimed by the next call past the threshold.
    @Test func aFailedWarningClaimStillServesTheCallAndTheNextCallClaimsIt() async throws {
        let upstream = try Upstream()
        let app = try await Self.app(upstream: upstream, ceiling: 5, routes: [Self.monitorRoute])
        func call(_ client: GateTestClient) async throws -> GateTestResponse {
            try await client.execute(
                "/v1/tutor/d/c",
                headers: [WireHeader.deviceID.name: randomDeviceID()],
                body: Array("{}".utf8)
            )
        }
        try await app.test { client in
            for _ in 0..<3 { #expect(try await call(client).status == 200) }
            // The warning claim is the only write that names `warned`.
            app.transport.refuse { operation, body in
                operation == "UpdateItem" && String(decoding: body, as: UTF8.self).contains("warned")
            }
            let fourth = try await call(client)
            #expect(fourth.status == 200, "\(fourth.status) \(fourth.error ?? "")")
            app.transport.refuse(when: nil)
            #expect(try await call(client).status == 200)
        }
        #expect(upstream.served == 5)
        #expect(try await Self.ceilingUsed(app) == 5)
        #expect(app.decisions.map { $0["budget_warning"] } == [nil, nil, nil, nil, .int(1)])
        #expect(try await app.row("AI_BUDGET#\(Self.today(app))", "TOTAL")?["warned"] == .bool(true))
    }

    /// A guest's first day is the day in `BUDGET_TIMEZONE`, whether the challenge endpoint or the metered
    /// path saw it first: stamped and compared in one calendar. `issued` is when the first challenge is
    /// issued (Unix seconds), `calls` the metered calls after it (seconds later) with the remaining
    /// allowance each must show (first day 14, later days 9).
    @Test(arguments: [
        // 2026-11-30T23:30Z is 08:30 the next day in Tokyo: stamping the UTC day made it a later day.
        ("Asia/Tokyo", 1_796_081_400, [(0, "13"), (60, "12")]),
        // 2026-12-01T00:30Z is 09:30 the same day in Tokyo, whose day ends at 15:00 UTC.
        ("Asia/Tokyo", 1_796_085_000, [(0, "13"), (52_140, "12"), (52_260, "8")]),
        // New York moves to EDT at 07:00 UTC on 8 March 2026. 2026-03-08T04:30Z is 23:30 EST on the 7th;
        // the local 8th is 23 hours long and ends at 04:00 UTC on the 9th.
        ("America/New_York", 1_772_944_200, [(0, "13"), (1_500, "12"), (1_860, "8"), (84_540, "7"), (84_660, "8")]),
        // 2026-03-08T06:30Z is 01:30 EST: the first day runs across the change to 23:59 EDT.
        ("America/New_York", 1_772_951_400, [(0, "13"), (77_340, "12"), (77_460, "8")]),
    ])
    func theFirstDayIsTheBudgetZonesDay(zone: String, issued: Int, calls: [(Int, String)]) async throws {
        let start = Date(timeIntervalSince1970: TimeInterval(issued))
        let upstream = try Upstream()
        let route = JSONValue.object([
            "method": "POST", "path": "/v1/tutor/{deckId}/{cardId}", "feature": "tutor", "mode": "monitor",
            "upstreamPath": "/tutor", "allowance": .object(["firstDay": 14, "laterDays": 9]),
        ])
        let clock = TestClock(fixed: start)
        let app = try await GateTestApp(
            routes: GateTestApp.routes([route]),
            settings: ["AI_DAILY_CALL_CEILING": "0", "UPSTREAM_URL": upstream.server.baseURL, "BUDGET_TIMEZONE": zone],
            clock: clock
        )
        let device = randomDeviceID()
        try await app.test { client in
            #expect(try await client.requestChallenge(deviceID: device).status == 200)
            var elapsed = 0
            for (offset, remaining) in calls {
                clock.advance(by: TimeInterval(offset - elapsed))
                elapsed = offset
                let response = try await client.execute(
                    "/v1/tutor/d/c",
                    headers: [WireHeader.deviceID.name: device],
                    body: Array("{}".utf8)
                )
                #expect(response.status == 200)
                #expect(response.header(WireHeader.quotaRemaining.name) == remaining, "\(zone) \(issued) +\(offset) s")
            }
        }
    }
}
