import AttestCore
import Synchronization
import TestSupport
import Testing

@testable import HTTPClient

/// `CurlTransport.send(_:before:)`: the deadline is libcurl's own timer, set when the transfer starts.
@Suite struct CurlTransportDeadlineTests {
    let transport = CurlTransport()

    @Test func anAnswerBeforeTheDeadlineIsReturned() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Array("ok".utf8)) }
        defer { server.stop() }
        let request = HTTPRequest(method: "GET", url: server.baseURL)
        let result = await transport.send(request, before: .after(.seconds(10)))
        #expect(try #require(result).get().body == Array("ok".utf8))
    }

    @Test func aHangingServerEndsAtTheDeadlineNotAtTheRequestTimeout() async throws {
        // The request may take 20 s; the deadline is 300 ms away: nil, near the deadline (the upper bound is
        // loose for a loaded machine, and far below the 20 s the request alone would allow).
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 60) }
        defer { server.stop() }
        let request = HTTPRequest(method: "GET", url: server.baseURL, timeout: .seconds(20))
        let start = ContinuousClock.now
        let result = await transport.send(request, before: .after(.milliseconds(300)))
        let elapsed = ContinuousClock.now - start
        #expect(result == nil)
        #expect(elapsed >= .milliseconds(280))
        #expect(elapsed < .seconds(8), "answered \(elapsed) after a 300 ms deadline")
        // The request did go out (the server's thread may record it late on a loaded machine).
        var waited = Duration.zero
        while server.requests.isEmpty, waited < .seconds(5) {
            try await Task.sleep(for: .milliseconds(20))
            waited += .milliseconds(20)
        }
        #expect(server.requests.count == 1)
    }

    @Test func theRequestsOwnShorterTimeoutIsTheTransportsTimeoutNotTheDeadline() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 60) }
        defer { server.stop() }
        let request = HTTPRequest(method: "GET", url: server.baseURL, timeout: .milliseconds(200))
        let result = await transport.send(request, before: .after(.seconds(20)))
        #expect(throws: HTTPError(.timeout)) { try #require(result).get() }
    }

    @Test func aDeadlinePassedBeforeTheStartSendsNothing() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200) }
        defer { server.stop() }
        let result = await transport.send(HTTPRequest(method: "GET", url: server.baseURL), before: .after(.zero))
        #expect(result == nil)
        try await Task.sleep(for: .milliseconds(200))  // a request sent anyway would have arrived by now
        #expect(server.connectionCount == 0)
        #expect(server.requests.isEmpty)
    }

    @Test func aFailureBeforeTheDeadlineIsTheTransportsError() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        let request = HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/")
        let result = await transport.send(request, before: .after(.seconds(10)))
        #expect(throws: HTTPError(.connectFailed)) { try #require(result).get() }
    }
}

/// `open(_:into:sending:)`: the hook runs on the transfer's thread just before the request is sent.
@Suite struct CurlTransportSendingHookTests {
    let transport = CurlTransport()

    @Test func theHookHasRunOnceWhenTheServerSeesTheRequest() async throws {
        let calls = Atomic<Int>(0)
        let seenByServer = Mutex<[Int]>([])
        let server = try LoopbackHTTPServer { _ in
            seenByServer.withLock { $0.append(calls.load(ordering: .sequentiallyConsistent)) }
            return .respond(
                status: 200,
                headers: [("Content-Type", "text/event-stream")],
                body: Array("data: a\n\n".utf8)
            )
        }
        defer { server.stop() }
        let stream = ResponseBodyStream(capacity: 4096)
        let request = HTTPRequest(method: "POST", url: server.baseURL, body: Array("{}".utf8))
        let head = try await transport.open(request, into: stream) {
            calls.add(1, ordering: .sequentiallyConsistent)
        }
        #expect(head.status == 200)
        while try await stream.next() != nil {}
        #expect(seenByServer.withLock { $0 } == [1])
        #expect(calls.load(ordering: .sequentiallyConsistent) == 1)
        // The pooled handle goes on to a buffered request (reset in between): the hook does not run again.
        // The streamed transfer's thread gives its handle back a moment after the reader saw the end.
        let clock = ContinuousClock()
        let givenUp = clock.now + .seconds(10)
        while transport.pool.idleCount == 0, clock.now < givenUp { try await Task.sleep(for: .milliseconds(5)) }
        #expect(transport.pool.idleCount == 1)
        let buffered = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL))
        #expect(buffered.status == 200)
        #expect(server.connectionCount == 1, "the buffered request should reuse the streamed one's handle")
        #expect(calls.load(ordering: .sequentiallyConsistent) == 1)
    }

    @Test func theHookDoesNotRunWhenNothingWasSent() async throws {
        let calls = Atomic<Int>(0)
        let port = try LoopbackHTTPServer.unusedPort()
        let stream = ResponseBodyStream(capacity: 4096)
        let request = HTTPRequest(method: "POST", url: "http://127.0.0.1:\(port)/", body: Array("{}".utf8))
        await #expect(throws: HTTPError(.connectFailed)) {
            _ = try await transport.open(request, into: stream) { calls.add(1, ordering: .sequentiallyConsistent) }
        }
        #expect(calls.load(ordering: .sequentiallyConsistent) == 0)
    }
}

@Suite struct HTTPHeaderNameTests {
    @Test func namesMatchIgnoringASCIICaseOnly() {
        #expect(HTTPHeader.namesMatch("Content-Type", "content-type"))
        #expect(HTTPHeader.namesMatch("X-AMZ-CRC32", "x-amz-crc32"))
        #expect(HTTPHeader.namesMatch("", ""))
        #expect(!HTTPHeader.namesMatch("Content-Type", "Content-Typ"))
        #expect(!HTTPHeader.namesMatch("Content-Typ", "Content-Type"))
        #expect(!HTTPHeader.namesMatch("a-b", "a_b"))
        // Only letters fold: '@' (0x40) and '`' (0x60) differ by 0x20 but are not the same byte.
        #expect(!HTTPHeader.namesMatch("@", "`"))
        #expect(!HTTPHeader.namesMatch("[", "{"))
        #expect(!HTTPHeader.namesMatch("é", "É"))
    }

    @Test func responsesFindHeadersWhateverTheirCase() {
        let response = HTTPResponse(
            status: 200,
            headers: [HTTPHeader("X-Amz-Crc32", "1"), HTTPHeader("x-amz-crc32", "2")]
        )
        #expect(response.header("X-AMZ-CRC32") == "1")
        #expect(response.header("x-amzn-requestid") == nil)
    }
}
