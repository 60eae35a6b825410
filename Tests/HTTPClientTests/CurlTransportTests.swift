import HTTPClient
import Synchronization
import TestSupport
import Testing

@Suite struct CurlTransportTests {
    let transport = CurlTransport()

    @Test func getReturnsStatusHeadersAndBody() async throws {
        let server = try LoopbackHTTPServer { request in
            .respond(status: 200, headers: [("X-Echo-Path", request.path)], body: Array("hello".utf8))
        }
        defer { server.stop() }
        let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/a?b=c"))
        #expect(response.status == 200)
        #expect(response.body == Array("hello".utf8))
        #expect(response.header("x-echo-path") == "/a?b=c")
    }

    /// The headers are the final response's: an interim `100 Continue` block's are dropped; names and
    /// values are trimmed of optional whitespace, a value's inner spaces and a repeated name kept; on a
    /// streamed response too.
    @Test func headersAreTheFinalResponsesTrimmed() async throws {
        let head =
            "HTTP/1.1 100 Continue\r\nX-Interim: dropped\r\n\r\n"
            + "HTTP/1.1 200 OK\r\nX-Spaced:  a  value \t\r\nX-Empty:\r\nX-Twice: 1\r\nX-Twice: 2\r\n"
            + "Content-Length: 2\r\nConnection: close\r\n\r\nok"
        let server = try LoopbackHTTPServer { _ in .raw(Array(head.utf8)) }
        defer { server.stop() }
        let expected = [
            HTTPHeader("X-Spaced", "a  value"), HTTPHeader("X-Empty", ""), HTTPHeader("X-Twice", "1"),
            HTTPHeader("X-Twice", "2"), HTTPHeader("Content-Length", "2"), HTTPHeader("Connection", "close"),
        ]
        let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/h"))
        #expect(response.status == 200 && response.body == Array("ok".utf8))
        #expect(response.headers == expected)
        let stream = ResponseBodyStream()
        let streamed = try await transport.open(HTTPRequest(method: "GET", url: server.baseURL + "/h"), into: stream)
        #expect(streamed.status == 200 && streamed.headers == expected)
        while try await stream.next() != nil {}
    }

    @Test func postSendsBodyAndHeadersWithoutCurlDefaults() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 201) }
        defer { server.stop() }
        let body: [UInt8] = [0x7b, 0x00, 0x7d, 0xff]  // NUL and non-UTF-8 bytes survive
        let request = HTTPRequest(
            method: "POST",
            url: server.baseURL + "/post",
            headers: [HTTPHeader("X-Api-Key", "k1")],
            body: body
        )
        let response = try await transport.send(request)
        #expect(response.status == 201)
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.body == body)
        #expect(received.header("x-api-key") == "k1")
        #expect(received.header("expect") == nil)
        #expect(received.header("content-type") == nil)
    }

    @Test func putUsesItsMethod() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 204) }
        defer { server.stop() }
        let response = try await transport.send(
            HTTPRequest(method: "PUT", url: server.baseURL + "/x", body: Array("{}".utf8))
        )
        #expect(response.status == 204)
        #expect(server.requests.first?.method == "PUT")
    }

    @Test func serverErrorsAreResponsesNotThrows() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 503, body: Array("busy".utf8)) }
        defer { server.stop() }
        let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        #expect(response.status == 503)
        #expect(response.body == Array("busy".utf8))
    }

    @Test func totalTimeoutCutsAHangingServer() async throws {
        // The server would hang for 60 s; the request must end long before that. The bound is loose
        // on purpose: on a loaded machine the test's own task may resume late, which is not the point.
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 60) }
        defer { server.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        await #expect(throws: HTTPError(.timeout)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL, timeout: .milliseconds(300)))
        }
        #expect(clock.now - start < .seconds(30))
    }

    @Test func declaredTooLargeBodyIsRefused() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: [UInt8](repeating: 65, count: 5000)) }
        defer { server.stop() }
        await #expect(throws: HTTPError(.responseTooLarge)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL, maxResponseBytes: 1000))
        }
    }

    @Test func undeclaredTooLargeBodyIsCutInTheWriteCallback() async throws {
        // No Content-Length: only the write callback can notice the size.
        let head = Array("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8)
        let server = try LoopbackHTTPServer { _ in .raw(head + [UInt8](repeating: 66, count: 200_000)) }
        defer { server.stop() }
        await #expect(throws: HTTPError(.responseTooLarge)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL, maxResponseBytes: 1000))
        }
        // The same body within the cap is accepted.
        let response = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        #expect(response.body.count == 200_000)
    }

    @Test func refusedConnectionIsConnectFailed() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        await #expect(throws: HTTPError(.connectFailed)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        }
    }

    @Test func closedWithoutAnswerIsConnectionReset() async throws {
        let server = try LoopbackHTTPServer { _ in .close }
        defer { server.stop() }
        await #expect(throws: HTTPError(.connectionReset)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        }
    }

    @Test(arguments: [
        "http://example.com/", "http://localhost@example.com/", "http://127.0.0.1.example.com/",
        "ftp://127.0.0.1/", "file:///etc/passwd", "gopher://127.0.0.1/",
    ])
    func plainHTTPOnlyToLoopback(url: String) async throws {
        await #expect(throws: HTTPError(.protocolRefused)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: url))
        }
    }

    @Test func malformedURLIsInvalid() async throws {
        await #expect(throws: HTTPError(.invalidURL)) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: "not a url"))
        }
    }

    @Test func headerInjectionIsRefused() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        await #expect(throws: HTTPError(.invalidHeader)) {
            _ = try await transport.send(
                HTTPRequest(method: "GET", url: server.baseURL, headers: [HTTPHeader("X", "a\r\nX-Forged: 1")])
            )
        }
        #expect(server.requests.isEmpty)
    }

    @Test func concurrentRequestsAreAllInFlightAtOnce() async throws {
        // The server holds every answer until all eight requests have arrived (or 10 s pass). If
        // curl_easy_perform ran on Swift's cooperative pool (as many threads as cores) the later
        // requests could not start while the first ones block, and the barrier would not be reached.
        let arrived = Atomic<Int>(0)
        let server = try LoopbackHTTPServer { _ in
            arrived.add(1, ordering: .sequentiallyConsistent)
            var waited = 0
            while arrived.load(ordering: .sequentiallyConsistent) < 8 && waited < 1000 {
                usleepMilliseconds(10)
                waited += 1
            }
            let reached = arrived.load(ordering: .sequentiallyConsistent) >= 8
            return .respond(status: 200, headers: [("X-Barrier", reached ? "reached" : "timed-out")])
        }
        defer { server.stop() }
        let transport = self.transport
        let barriers = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await transport.send(
                        HTTPRequest(method: "GET", url: server.baseURL, timeout: .seconds(20))
                    ).header("x-barrier")
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(barriers == Array(repeating: "reached", count: 8))
    }

    @Test func sequentialRequestsReuseOneKeptAliveConnection() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        for _ in 0..<3 {
            _ = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        }
        #expect(server.requests.count == 3)
        #expect(server.connectionCount == 1)
    }
}

@Suite struct CurlTransportCancellationTests {
    @Test func cancellingTheTaskAbortsAHangingTransfer() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 60) }
        defer { server.stop() }
        let transport = CurlTransport()
        let task = Task {
            try await transport.send(HTTPRequest(method: "GET", url: server.baseURL, timeout: .seconds(60)))
        }
        // Wait until the request is on the wire, then cancel: libcurl's progress callback notices
        // within about a second, long before the 60 s timeout.
        for _ in 0..<100 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!server.requests.isEmpty)
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        await #expect(throws: HTTPError(.cancelled)) { _ = try await task.value }
        #expect(clock.now - start < .seconds(20))
    }

    @Test func aCancelledTaskDoesNotStartARequest() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        let transport = CurlTransport()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        }
        await #expect(throws: HTTPError(.cancelled)) { _ = try await task.value }
        #expect(server.requests.isEmpty)
    }
}
