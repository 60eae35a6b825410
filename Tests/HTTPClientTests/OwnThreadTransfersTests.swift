import AttestCore
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import HTTPClient

/// `OwnThreadTransfers`: the marked task's buffered requests run on its own thread; its children's do not.
@Suite struct OwnThreadTransfersTests {
    let transport = CurlTransport()

    @Test func onlyTheMarkedTaskItselfIsTheOwner() async {
        #expect(!OwnThreadTransfers.currentTaskIsOwner)
        let seen = await OwnThreadTransfers.run { () async -> [Bool] in
            async let child = OwnThreadTransfers.currentTaskIsOwner
            // An unstructured task inherits the task-locals too, and is not the owner either.
            let detached = await Task { OwnThreadTransfers.currentTaskIsOwner }.value
            return [OwnThreadTransfers.currentTaskIsOwner, await child, detached]
        }
        #expect(seen == [true, false, false])
        #expect(!OwnThreadTransfers.currentTaskIsOwner)
    }

    @Test func theOwnersRequestsAnswerAsAnyOthers() async throws {
        let server = try LoopbackHTTPServer { request in
            .respond(status: 200, headers: [("X-Echo-Path", request.path)], body: Array("hello".utf8))
        }
        defer { server.stop() }
        let transport = self.transport
        let (first, second) = try await OwnThreadTransfers.run {
            let first = try await transport.send(HTTPRequest(method: "GET", url: server.baseURL + "/a"))
            let second = await transport.send(
                HTTPRequest(method: "GET", url: server.baseURL + "/b"),
                before: .after(.seconds(10))
            )
            return (first, try #require(second).get())
        }
        #expect(first.status == 200 && first.body == Array("hello".utf8) && first.header("x-echo-path") == "/a")
        #expect(second.status == 200 && second.header("x-echo-path") == "/b")
        #expect(server.connectionCount == 1, "one kept-alive connection, as off the owner's thread")
    }

    @Test func theOwnersChildrenStillRunTheirRequestsSideBySide() async throws {
        // One child more than the cooperative pool has threads (one per core), and the server holds every
        // answer until all have arrived: children blocking pool threads in their requests could not all be
        // in flight at once, and the barrier would not be reached.
        let children = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 1
        let arrived = Atomic<Int>(0)
        let server = try LoopbackHTTPServer { _ in
            arrived.add(1, ordering: .sequentiallyConsistent)
            var waited = 0
            while arrived.load(ordering: .sequentiallyConsistent) < children && waited < 1000 {
                usleepMilliseconds(10)
                waited += 1
            }
            let reached = arrived.load(ordering: .sequentiallyConsistent) >= children
            return .respond(status: 200, headers: [("X-Barrier", reached ? "reached" : "timed-out")])
        }
        defer { server.stop() }
        let transport = self.transport
        let barriers = try await OwnThreadTransfers.run {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<children {
                    group.addTask {
                        try await transport.send(
                            HTTPRequest(method: "GET", url: server.baseURL, timeout: .seconds(20))
                        ).header("x-barrier")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(barriers == Array(repeating: "reached", count: children))
    }

    @Test func theOwnersHangingRequestEndsAtItsDeadline() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 30) }
        defer { server.stop() }
        let transport = self.transport
        let clock = ContinuousClock()
        let started = clock.now
        let result = await OwnThreadTransfers.run {
            await transport.send(HTTPRequest(method: "GET", url: server.baseURL), before: .after(.milliseconds(300)))
        }
        #expect(result == nil, "a deadline that passes is nil")
        #expect(clock.now - started < .seconds(10))
    }

    @Test func cancellingTheOwnerAbortsItsHangingRequest() async throws {
        let server = try LoopbackHTTPServer { _ in .hang(seconds: 60) }
        defer { server.stop() }
        let transport = self.transport
        let task = Task {
            try await OwnThreadTransfers.run {
                try await transport.send(HTTPRequest(method: "GET", url: server.baseURL, timeout: .seconds(60)))
            }
        }
        for _ in 0..<250 where server.requests.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!server.requests.isEmpty)
        task.cancel()
        await #expect(throws: HTTPError(.cancelled)) { _ = try await task.value }
    }

    /// Given a multi, the owner's streamed download runs on the owner's own thread: a reader that is behind
    /// pauses it (every byte arrives, in order, through an 8 KiB buffer), and forwarded pieces reach the
    /// sink on the thread that waits for the stream's end. Without one, they reach it on the transfer's own.
    @Test func anOwnersStreamRunsOnItsOwnThreadInItsMulti() async throws {
        let body = (0..<(512 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var raw = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for start in stride(from: 0, to: body.count, by: 16 * 1024) {
            let piece = body[start..<min(start + 16 * 1024, body.count)]
            raw += Array(String(piece.count, radix: 16).utf8) + [13, 10] + piece + [13, 10]
        }
        raw += Array("0\r\n\r\n".utf8)
        let server = try LoopbackHTTPServer { [raw] _ in .raw(raw) }
        defer { server.stop() }
        let transport = self.transport
        func run(_ multi: OwnThreadMulti?) async throws -> (bytes: [UInt8], onWaitingThread: Bool) {
            try await OwnThreadTransfers.run(streamingIn: multi) {
                let stream = ResponseBodyStream(capacity: 8 * 1024)
                let head = try await transport.open(HTTPRequest(method: "GET", url: server.baseURL), into: stream)
                #expect(head.status == 200)
                var received: [UInt8] = []
                while received.count < body.count / 2, let piece = try await stream.next() { received += piece }
                let threads = Mutex<[pthread_t]>([])
                let forwarded = Mutex<[UInt8]>([])
                let sink: ResponseBodyStream.Sink = { piece in
                    threads.withLock { $0.append(pthread_self()) }
                    forwarded.withLock { $0 += [UInt8](piece) }
                    return true
                }
                while !stream.forward(to: sink) {
                    guard let piece = try await stream.next() else { break }
                    received += piece
                }
                let waiting = pthread_self()
                #expect(await stream.forwardingEnded() == nil)
                received += forwarded.withLock { $0 }
                let seen = threads.withLock { $0 }
                return (received, !seen.isEmpty && seen.allSatisfy { pthread_equal($0, waiting) != 0 })
            }
        }
        let own = try await run(OwnThreadMulti())
        #expect(own.bytes == body)
        #expect(own.onWaitingThread, "in the multi, every piece reaches the sink on the waiting task's thread")
        let threaded = try await run(nil)
        #expect(threaded.bytes == body)
        #expect(!threaded.onWaitingThread, "without one, on the transfer's own thread")
    }
}
