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
}
