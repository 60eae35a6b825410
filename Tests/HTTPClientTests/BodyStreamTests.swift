import Dispatch
import Synchronization
import Testing

@testable import HTTPClient

/// The bounded pipes between libcurl's callbacks and async code, driven from a plain thread as libcurl would.
@Suite struct BodyStreamTests {
    /// Pushes `count` pieces of `size` bytes from a dispatch thread; returns how many were accepted.
    func produce(_ stream: ResponseBodyStream, count: Int, size: Int) async -> Int {
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "producer").async {
                let piece = [UInt8](repeating: 7, count: size)
                var accepted = 0
                for _ in 0..<count {
                    guard piece.withUnsafeBytes({ stream.push($0) }) else { break }
                    accepted += 1
                }
                stream.end(nil)
                continuation.resume(returning: accepted)
            }
        }
    }

    @Test func theProducerWaitsForTheReaderAndEveryByteArrivesInOrder() async throws {
        let stream = ResponseBodyStream(capacity: 4096)
        stream.publish(ResponseBodyStream.Head(status: 200, headers: [HTTPHeader("Content-Type", "text/event-stream")]))
        async let accepted = produce(stream, count: 200, size: 1000)
        #expect(try await stream.head().header("content-type") == "text/event-stream")
        var total = 0
        while let piece = try await stream.next() {
            total += piece.count
            try await Task.sleep(for: .microseconds(50))
        }
        #expect(await accepted == 200)
        #expect(total == 200_000)
    }

    @Test func cancelStopsABlockedProducerAndTheReaderSeesCancelled() async throws {
        let stream = ResponseBodyStream(capacity: 1000)
        async let accepted = produce(stream, count: 1000, size: 1000)
        _ = try await stream.next()
        stream.cancel()
        #expect(await accepted < 10)
        await #expect(throws: HTTPError(.cancelled)) { while try await stream.next() != nil {} }
    }

    @Test func aProducerBlockedPastTheDeadlineGivesUp() async throws {
        let stream = ResponseBodyStream(capacity: 1000, deadline: .now + .milliseconds(200))
        let started = ContinuousClock.now
        // Nobody reads: the producer blocks once the buffer is full, then gives up at the deadline.
        #expect(await produce(stream, count: 100, size: 1000) == 1)
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func aRequestBodyWriterWaitsWhileTheBufferIsFull() async throws {
        let body = RequestBodyStream(capacity: 2000, trailerNames: ["X-End"])
        let written = Atomic<Int>(0)
        let writer = Task {
            for _ in 0..<10 {
                try await body.write([UInt8](repeating: 1, count: 1000))
                written.add(1, ordering: .sequentiallyConsistent)
            }
            body.finish(trailers: [HTTPHeader("X-End", "ok")])
        }
        try await Task.sleep(for: .milliseconds(100))
        // Nothing drains it: at most the capacity plus one piece is queued.
        #expect(written.load(ordering: .sequentiallyConsistent) <= 3)
        // libcurl's read callback drains it on its own thread, in pieces no larger than its buffer.
        let drained = await withCheckedContinuation { continuation in
            DispatchQueue(label: "reader").async {
                var buffer = [UInt8](repeating: 0, count: 1500)
                var total = 0
                while true {
                    let count = buffer.withUnsafeMutableBytes { body.read(into: $0) }
                    if count <= 0 { break }
                    total += count
                }
                continuation.resume(returning: total)
            }
        }
        try await writer.value
        #expect(drained == 10_000)
        #expect(body.trailers == [HTTPHeader("X-End", "ok")])
    }

    /// A reader that fell behind gets everything that arrived in one piece, in order, not one per push.
    @Test func theReaderTakesEveryQueuedPieceAtOnce() async throws {
        let stream = ResponseBodyStream(capacity: 1 << 16)
        for byte in UInt8(1)...3 {
            #expect([UInt8](repeating: byte, count: 100).withUnsafeBytes { stream.push($0) })
        }
        let piece = try #require(try await stream.next())
        let expected = (UInt8(1)...3).flatMap { [UInt8](repeating: $0, count: 100) }
        #expect(piece == expected)
        #expect([UInt8](repeating: 4, count: 10).withUnsafeBytes { stream.push($0) })
        stream.end(nil)
        #expect(try await stream.next() == [UInt8](repeating: 4, count: 10))
        #expect(try await stream.next() == nil)
    }

    /// libcurl's read callback gets every queued write that fits its buffer (one chunk on the wire), and
    /// the rest on the next call.
    @Test func theReadCallbackFillsItsBufferFromSeveralWrites() async throws {
        let body = RequestBodyStream(capacity: 1 << 16)
        try await body.write([1, 2, 3])
        try await body.write([4, 5])
        try await body.write([6, 7, 8, 9])
        body.finish()
        var buffer = [UInt8](repeating: 0, count: 7)
        #expect(buffer.withUnsafeMutableBytes { body.read(into: $0) } == 7)
        #expect(buffer == [1, 2, 3, 4, 5, 6, 7])
        #expect(buffer.withUnsafeMutableBytes { body.read(into: $0) } == 2)
        #expect(buffer.prefix(2) == [8, 9])
        #expect(buffer.withUnsafeMutableBytes { body.read(into: $0) } == 0)
    }

    /// Once nothing waits to be read, each piece goes to the sink on the producer's thread, in order after
    /// the pieces read before; a sink that says stop cancels the transfer.
    @Test func forwardingHandsEachLaterPieceToTheSinkOnTheProducersThread() async throws {
        let stream = ResponseBodyStream(capacity: 1 << 16)
        let received = Mutex<[[UInt8]]>([])
        let sink: ResponseBodyStream.Sink = { piece in
            received.withLock { $0.append([UInt8](piece)) }
            return piece.first != 9
        }
        #expect([UInt8]([1, 1]).withUnsafeBytes { stream.push($0) })
        // A piece is waiting: not installed, so it cannot be overtaken.
        let whileQueued = stream.forward(to: sink)
        #expect(!whileQueued)
        #expect(try await stream.next() == [1, 1])
        let once = stream.forward(to: sink)
        let twice = stream.forward(to: sink)
        #expect(once && !twice)
        let accepted = await withCheckedContinuation { continuation in
            DispatchQueue(label: "producer").async {
                let results = [[UInt8]([2]), [3, 3], [9], [4]].map { piece in piece.withUnsafeBytes { stream.push($0) }
                }
                stream.end(nil)
                continuation.resume(returning: results)
            }
        }
        #expect(accepted == [true, true, false, false])
        #expect(received.withLock { $0 } == [[2], [3, 3], [9]])
        #expect(await stream.forwardingEnded() == HTTPError(.cancelled))
        // A stream that ends cleanly while forwarding ends with nil.
        let clean = ResponseBodyStream()
        let installed = clean.forward(to: { _ in true })
        #expect(installed)
        #expect([UInt8]([5]).withUnsafeBytes { clean.push($0) })
        clean.end(nil)
        #expect(await clean.forwardingEnded() == nil)
    }

    /// A blocking writer (another transfer's thread) waits while the body is over its capacity, until the
    /// reader drains it, the transfer closes, or the deadline passes.
    @Test func aBlockingWriterWaitsForTheReaderTheCloseOrItsDeadline() async throws {
        let body = RequestBodyStream(capacity: 1000)
        let piece = [UInt8](repeating: 1, count: 1500)
        let started = ContinuousClock.now
        let timedOut = piece.withUnsafeBytes { body.writeBlocking($0, deadline: .now + .milliseconds(150)) }
        #expect(timedOut == .timedOut)
        #expect(ContinuousClock.now - started >= .milliseconds(140))
        // The reader drains it on its own thread: the next blocking write returns once it is under capacity.
        let drained = Atomic<Int>(0)
        DispatchQueue(label: "reader").async {
            var buffer = [UInt8](repeating: 0, count: 700)
            while true {
                let count = buffer.withUnsafeMutableBytes { body.read(into: $0) }
                if count <= 0 { break }
                drained.add(count, ordering: .sequentiallyConsistent)
            }
        }
        #expect(piece.withUnsafeBytes { body.writeBlocking($0, deadline: .now + .seconds(5)) } == .written)
        body.finish()
        let allDrained = await waitUntil { drained.load(ordering: .sequentiallyConsistent) == 3000 }
        #expect(allDrained)
        // After the transfer closed, a blocking write fails at once, and a blocked one resumes.
        let closing = RequestBodyStream(capacity: 10)
        DispatchQueue(label: "closer").asyncAfter(deadline: .now() + .milliseconds(50)) {
            closing.close(HTTPError(.failed, detail: "over"))
        }
        let blocked = piece.withUnsafeBytes { closing.writeBlocking($0, deadline: .now + .seconds(5)) }
        #expect(blocked == .closed(HTTPError(.failed)))
        #expect(piece.withUnsafeBytes { closing.writeBlocking($0, deadline: nil) } == .closed(HTTPError(.failed)))
    }

    func waitUntil(_ condition: @Sendable () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
