import AppTestSupport
import AttestCore
import DynamoDB
import FoundationEssentials
import Synchronization
import TestSupport
import Testing
import WireContract

/// A fake provider whose behaviour each test picks (units come back only when it provably did not
/// bill: docs/gate.md, "What is released").
final class BehavingUpstream: Sendable {
    enum Behaviour: Int {
        case answer200, slow200, partialThenReset, status429, status503, status500, status400, status401, status413
    }

    /// What a provider's own refusal says: its project, its key's prefix, its wording. Never for the client.
    static let providerSecrets =
        #"{"error":{"message":"Incorrect API key sk-proj-abc123 for project proj_XYZ","type":"invalid_request_error"}}"#

    final class State: Sendable {
        let behaviour = Atomic<Int>(Behaviour.answer200.rawValue)
        let received = Atomic<Int>(0)
    }

    let state = State()
    let server: LoopbackHTTPServer
    var received: Int { state.received.load(ordering: .sequentiallyConsistent) }

    init(slowMilliseconds: Int = 1500) throws {
        let state = self.state
        server = try LoopbackHTTPServer { request in
            state.received.add(1, ordering: .sequentiallyConsistent)
            let ok = Array(#"{"cards":[]}"#.utf8)
            switch Behaviour(rawValue: state.behaviour.load(ordering: .sequentiallyConsistent)) ?? .answer200 {
            case .answer200: return .respond(status: 200, headers: [("Content-Type", "application/json")], body: ok)
            case .slow200: return .respondAfter(milliseconds: slowMilliseconds, status: 200, body: ok)
            case .partialThenReset:
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"car"
                return .raw(Array(head.utf8))
            case .status429: return .respond(status: 429, body: Array(#"{"error":"rate_limited"}"#.utf8))
            case .status503: return .respond(status: 503, body: Array(#"{"error":"overloaded"}"#.utf8))
            case .status500: return .respond(status: 500, body: Array(#"{"error":"internal"}"#.utf8))
            case .status400: return .respond(status: 400, body: Array(BehavingUpstream.providerSecrets.utf8))
            case .status401: return .respond(status: 401, body: Array(BehavingUpstream.providerSecrets.utf8))
            case .status413: return .respond(status: 413, body: Array(BehavingUpstream.providerSecrets.utf8))
            }
        }
    }

    func behave(_ next: Behaviour) { state.behaviour.store(next.rawValue, ordering: .sequentiallyConsistent) }
}

/// The release policy through the real router, against moto: which upstream outcomes give the
/// allowance and ceiling units back.
@Suite(.enabled(if: spendFlowMoto != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct ReleaseFlowTests {
    static func route(_ extra: [String: JSONValue] = [:]) -> JSONValue {
        var fields: [String: JSONValue] = [
            "method": "POST", "path": "/v1/tutor/{deckId}/{cardId}", "feature": "tutor", "mode": "monitor",
            "upstreamPath": "/tutor", "allowance": .object(["firstDay": 50, "laterDays": 50]),
        ]
        for (name, value) in extra { fields[name] = value }
        return .object(fields)
    }

    static func app(upstreamURL: String, route: JSONValue = route()) async throws -> GateTestApp {
        try await GateTestApp(
            routes: GateTestApp.routes([route]),
            settings: ["AI_DAILY_CALL_CEILING": "100", "UPSTREAM_URL": upstreamURL]
        )
    }

    /// (allowance count, ceiling calls) for `device` today.
    static func counters(_ app: GateTestApp, _ device: String) async throws -> (Int, Int) {
        (
            try await SpendFlowTests.allowanceUsed(app, device: device, feature: "tutor"),
            try await SpendFlowTests.ceilingUsed(app)
        )
    }

    static func call(
        _ client: GateTestClient,
        _ device: String,
        body: [UInt8] = Array("{}".utf8)
    ) async throws
        -> GateTestResponse
    {
        try await client.execute("/v1/tutor/d/c", headers: [WireHeader.deviceID.name: device], body: body)
    }

    @Test func aProviderStillWorkingPastTheTimeoutAnswers504AndKeepsBothUnits() async throws {
        let upstream = try BehavingUpstream(slowMilliseconds: 1500)
        let app = try await Self.app(
            upstreamURL: upstream.server.baseURL,
            route: Self.route(["upstreamTimeoutMs": 300])
        )
        let device = randomDeviceID()
        try await app.test { client in
            upstream.behave(.slow200)
            let response = try await Self.call(client, device)
            #expect(response.status == 504 && response.error == "upstream_unavailable")
            #expect(response.header(WireHeader.quotaRemaining.name) == "49")
        }
        #expect(upstream.received == 1)
        let (allowance, ceiling) = try await Self.counters(app, device)
        #expect(allowance == 1 && ceiling == 1)
        #expect(app.decisions.last?["upstream"] == "timeout_kept")
    }

    @Test func headersAndPartOfABodyThenACutKeepBothUnits() async throws {
        let upstream = try BehavingUpstream()
        let app = try await Self.app(upstreamURL: upstream.server.baseURL)
        let device = randomDeviceID()
        try await app.test { client in
            upstream.behave(.partialThenReset)
            let response = try await Self.call(client, device)
            #expect(response.status == 502 && response.error == "upstream_unavailable")
        }
        let (allowance, ceiling) = try await Self.counters(app, device)
        #expect(allowance == 1 && ceiling == 1)
        #expect(app.decisions.last?["upstream"] == "cut_kept")
    }

    @Test func aClosedPortNeverSawTheRequestSoBothUnitsComeBack() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        let app = try await Self.app(upstreamURL: "http://127.0.0.1:\(port)")
        let device = randomDeviceID()
        try await app.test { client in
            for _ in 0..<3 {
                let response = try await Self.call(client, device)
                #expect(response.status == 502 && response.header(WireHeader.quotaRemaining.name) == "50")
            }
        }
        let (allowance, ceiling) = try await Self.counters(app, device)
        #expect(allowance == 0 && ceiling == 0)
        #expect(app.decisions.last?["upstream"] == "unsent")
    }

    /// What each provider refusal answers and whether its units come back. Documented refusals (the route's
    /// `releaseStatuses`) are released; any other failure keeps both units. A provider's own error body never
    /// reaches the client: the request's fault is `400 invalid_request` (`413 request_too_large`), anything else
    /// (its key, its quota, its outage) `502 upstream_unavailable`.
    @Test(arguments: [
        (BehavingUpstream.Behaviour.status429, 502, "upstream_unavailable", true, "refused_429"),
        (.status503, 502, "upstream_unavailable", true, "refused_503"),
        (.status500, 502, "upstream_unavailable", false, "failed_500"),
        (.status400, 400, "invalid_request", false, "rejected_400"),
        (.status413, 413, "request_too_large", false, "rejected_413"),
        (.status401, 502, "upstream_unavailable", false, "rejected_401"),
    ])
    func eachProviderRefusalHasOurAnswerAndItsUnitsAsDocumented(
        behaviour: BehavingUpstream.Behaviour,
        status: Int,
        error: String,
        released: Bool,
        label: String
    ) async throws {
        let upstream = try BehavingUpstream()
        let app = try await Self.app(upstreamURL: upstream.server.baseURL)
        let device = randomDeviceID()
        try await app.test { client in
            upstream.behave(behaviour)
            for _ in 0..<2 {
                let response = try await Self.call(client, device)
                #expect(response.status == status && response.error == .some(error))
                #expect(response.body == Array(#"{"error":"\#(error)"}"#.utf8))
            }
        }
        let (allowance, ceiling) = try await Self.counters(app, device)
        #expect(allowance == (released ? 0 : 2) && ceiling == (released ? 0 : 2))
        #expect(app.decisions.last?["upstream"] == .string(label))
    }

    @Test func aBodyOverMaxRequestBytesIs413BeforeAnyChallengeOrRow() async throws {
        let upstream = try BehavingUpstream()
        let app = try await Self.app(
            upstreamURL: upstream.server.baseURL,
            route: Self.route(["maxRequestBytes": 64, "mode": "enforce"])
        )
        try await app.test { client in
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            let challenge = try await client.challenge(deviceID: device.deviceID)
            device.nextChallenge = challenge
            app.transport.resetCounts()
            let big = Array(String(repeating: "x", count: 65).utf8)
            let refused = try await client.metered(&device, path: "/v1/tutor/d/c", body: big)
            #expect(refused.status == 413 && refused.error == "request_too_large")
            // No DynamoDB request at all: no challenge spent, no row written.
            #expect(app.transport.operations.isEmpty)
            // The challenge the refused call carried is still good.
            device.nextChallenge = challenge
            let small = try await client.metered(&device, path: "/v1/tutor/d/c", body: Array("{}".utf8))
            #expect(small.status == 200)
        }
        #expect(upstream.received == 1)
    }
}
