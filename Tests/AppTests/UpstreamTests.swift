import App
import AttestCore
import Dialects
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

    /// Anthropic answers 400 to a Messages request without `anthropic-version`: that route sends it, buffered
    /// and streamed; other dialects do not.
    @Test(arguments: [false, true])
    func anAnthropicRouteSendsTheAPIVersion(streamed: Bool) async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        var anthropic = route
        anthropic.dialect = .anthropicMessages
        anthropic.stream = streamed
        _ = await upstream(server, header: "x-api-key").call(route: anthropic, body: [], timeout: .seconds(5))
        #expect(server.requests.first?.header("anthropic-version") == "2023-06-01")
        _ = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("anthropic-version") == nil)
    }

    @Test func anotherHeaderCarriesTheKeyAsIs() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        _ = await upstream(server, header: "X-Api-Key").call(route: route, body: [], timeout: .seconds(5))
        #expect(server.requests.first?.header("x-api-key") == "k-123")
        #expect(server.requests.first?.header("authorization") == nil)
    }

    @Test(arguments: [429, 500, 503, 529])
    func everyStatusIsAnAnswerTheRoutesPolicyJudges(status: Int) async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: status) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(result == .answered(status: status, contentType: nil, body: []))
    }

    @Test func clientErrorsOfTheProviderArePassedOn() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 400, body: Array("bad".utf8)) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(result == .answered(status: 400, contentType: nil, body: Array("bad".utf8)))
    }

    @Test func aTimeoutAfterTheRequestWasWrittenIsTimedOutNotUnsent() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 10) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: Array("{}".utf8), timeout: .milliseconds(200))
        #expect(result == .failed(.timedOut, reason: "http.timeout"))
        #expect(server.requests.first?.body == Array("{}".utf8))
    }

    @Test func aRefusedConnectionIsProvablyNotSent() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        let upstream = HTTPUpstream(
            baseURL: "http://127.0.0.1:\(port)",
            authHeader: "Authorization",
            key: "k",
            transport: CurlTransport()
        )
        let result = await upstream.call(route: route, body: [], timeout: .seconds(2))
        #expect(result == .failed(.notSent, reason: "http.connect_failed"))
    }

    @Test func aConnectionCutAfterTheHeadersIsCut() async throws {
        let partial = "HTTP/1.1 200 OK\r\nContent-Length: 50\r\nContent-Type: application/json\r\n\r\n{\"choi"
        let server = try LoopbackHTTPServer { _ in .raw(Array(partial.utf8)) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: Array("{}".utf8), timeout: .seconds(5))
        #expect(result == .failed(.cut, reason: "http.connection_reset"))
    }

    @Test func aConnectionClosedAfterTheRequestWithoutAnAnswerIsLost() async throws {
        let server = try LoopbackHTTPServer { _ in .close }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: Array("{}".utf8), timeout: .seconds(5))
        #expect(result == .failed(.lost, reason: "http.connection_reset"))
    }

    @Test func aTooLargeAnswerWasBilledSoItIsKept() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: [UInt8](repeating: 1, count: 500)) }
        defer { server.stop() }
        let result = await upstream(server).call(route: route, body: [], timeout: .seconds(5))
        #expect(result == .failed(.tooLarge, reason: "http.response_too_large"))
    }
}
