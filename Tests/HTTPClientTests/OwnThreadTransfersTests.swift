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
}
