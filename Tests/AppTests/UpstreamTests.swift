import App
import AttestCore
import FoundationEssentials
import Gate
import HTTPClient
import TestSupport
import Testing

@Suite struct HTTPUpstreamTests {
    let route = MeteredRoute(
        path: "/v1/generate",
        feature: "generation",
        upstreamPath: "/generate",
        maxResponseBytes: 100
    )

    func upstream(_ server: LoopbackHTTPServer, header: String = "Authorization") -> HTTPUpstream {
        HTTPUpstream(baseURL: server.baseURL + "/", authHeader: header, key: "k-123", transport: CurlTransport())
    }

    @Test func forwardsTheBodyWithTheServerHeldKey() async throws {
        let server = try LoopbackHTTPServer { _ in
            .respond(status: 201, headers: [("Content-Type", "application/json")], body: Array(#"{"ok":1}"#.utf8))
        }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: Array("{}".utf8), timeout: .seconds(5))
        #expect(result == .answered(status: 201, contentType: "application/json", body: Array(#"{"ok":1}"#.utf8)))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/generate")
        #expect(request.header("authorization") == "Bearer k-123")
        #expect(request.body == Array("{}".utf8))
    }

    @Test func anotherHeaderCarriesTheKeyAsIs() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        _ = await upstream(server, header: "X-Api-Key").call(route: route, body: [], timeout: .seconds(5))
        #expect(server.requests.first?.header("x-api-key") == "k-123")
        #expect(server.requests.first?.header("authorization") == nil)
    }

    @Test(arguments: [429, 500, 503])
    func overloadedProviderIsNotAnswered(status: Int) async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: status) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(result == .notAnswered(timedOut: false, reason: "upstream.status_\(status)"))
    }

    @Test func clientErrorsOfTheProviderArePassedOn() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 400, body: Array("bad".utf8)) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(result == .answered(status: 400, contentType: nil, body: Array("bad".utf8)))
    }

    @Test func timeoutIsNotAnsweredAndTimedOut() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 10) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .milliseconds(200))
        #expect(result == .notAnswered(timedOut: true, reason: "http.timeout"))
    }

    @Test func refusedConnectionIsNotAnswered() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        let upstream = HTTPUpstream(
            baseURL: "http://127.0.0.1:\(port)",
            authHeader: "Authorization",
            key: "k",
            transport: CurlTransport()
        )
        let result = await upstream.call(route: route, body: [], timeout: .seconds(2))
        #expect(result == .notAnswered(timedOut: false, reason: "http.connect_failed"))
    }

    @Test func aTooLargeAnswerWasBilledSoItIsAnsweredAs502() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: [UInt8](repeating: 1, count: 500)) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        guard case .answered(let status, _, let body) = result else {
            Issue.record("expected answered, got \(result)")
            return
        }
        #expect(status == 502)
        #expect(body == Array(#"{"error":"upstream_unavailable"}"#.utf8))
    }
}

/// Records what it was asked and answers with a fixed result.
struct FixedUpstream: UpstreamCalling {
    let result: UpstreamResult
    let timeouts = CapturingLogSink()  // reused as a thread-safe list of strings

    func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        timeouts.write(
            line: "\(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)"
        )
        return result
    }
}

@Suite struct UpstreamOnlyPipelineTests {
    let offRoute = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .off, upstreamPath: "/generate")
    let device = ["x-device-id": "7D444840-9DC0-11D1-B245-5FFDCE74FAD2"]
    let logger = Logger(sink: CapturingLogSink())

    func run(
        _ upstream: FixedUpstream,
        headers: [String: String],
        route: MeteredRoute? = nil,
        sub: String? = nil
    )
        async -> MeteredResponse
    {
        let request = MeteredRequest(method: "POST", rawPath: "/v1/generate", headers: headers, body: [], userSub: sub)
        return await UpstreamOnlyPipeline(upstream: upstream, margin: .milliseconds(300)).handle(
            request,
            route: route ?? offRoute,
            now: .init(timeIntervalSince1970: 0),
            deadline: .after(.seconds(2)),
            logger: logger
        )
    }

    @Test func answeredIsPassedOnWithTimeoutFromTheDeadline() async throws {
        let upstream = FixedUpstream(result: .answered(status: 200, contentType: "application/json", body: [1]))
        let response = await run(upstream, headers: device)
        #expect(response.status == 200)
        #expect(response.body == [1])
        #expect(response.headers["content-type"] == "application/json")
        let timeout = try #require(upstream.timeouts.lines.first.flatMap { Int($0) })
        #expect(timeout <= 1700 && timeout > 1000)  // the deadline minus the 300 ms margin
    }

    @Test(arguments: [(true, 504), (false, 502)])
    func notAnsweredIsUpstreamUnavailable(timedOut: Bool, status: Int) async {
        let response = await run(FixedUpstream(result: .notAnswered(timedOut: timedOut, reason: "x")), headers: device)
        #expect(response == .error(status, "upstream_unavailable"))
    }

    @Test func guestsNeedADeviceIDSignedInUsersDoNot() async {
        let upstream = FixedUpstream(result: .answered(status: 200, contentType: nil, body: []))
        #expect(await run(upstream, headers: [:]) == .error(400, "invalid_device_id"))
        #expect(await run(upstream, headers: ["x-device-id": "not-a-uuid"]) == .error(400, "invalid_device_id"))
        #expect(await run(upstream, headers: [:], sub: "user-1").status == 200)
    }

    @Test func gatedRoutesFailClosedUntilTheStoresAreWired() async {
        let upstream = FixedUpstream(result: .answered(status: 200, contentType: nil, body: []))
        var gated = offRoute
        gated.mode = .monitor
        #expect(await run(upstream, headers: device, route: gated) == .error(503, "unavailable"))
        #expect(upstream.timeouts.lines.isEmpty)
    }

    @Test func theFullGatePipelineFitsTheSameSeam() {
        // Compile-time: Gate's MeteredCall is a MeteredPipeline, so the app swaps it in unchanged.
        let pipeline: any MeteredPipeline.Type = MeteredCall.self
        #expect(pipeline is MeteredCall.Type)
    }
}
