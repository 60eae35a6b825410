import Testing

@testable import AttestGateClient

@Suite struct EventStreamParserTests {
    func events(_ pieces: [String], maxLine: Int = 1 << 20) throws -> [ServerSentEvent] {
        var parser = EventStreamParser(maxLineBytes: maxLine)
        var events: [ServerSentEvent] = []
        for piece in pieces { events += try parser.feed(Array(piece.utf8)) }
        return events
    }

    @Test func linesEndAtLFCROrCRLFEvenSplitAcrossPieces() throws {
        let parsed = try events(["data: one\r", "\ndata: two\r\n\r", "\ndata: three\r\rdata: four\n\n"])
        #expect(parsed.map(\.data) == ["one\ntwo", "three", "four"])
    }

    @Test func fieldsCommentsAndTheIDCarriedOver() throws {
        let parsed = try events([
            "\u{FEFF}: a comment\nevent: delta\nid: 7\nretry: 1500\ndata:{\"a\":1}\ndata:  x\n\n", "data: next\n\n",
        ])
        #expect(parsed.count == 2)
        #expect(parsed[0] == ServerSentEvent(event: "delta", data: "{\"a\":1}\n x", id: "7", retry: 1500))
        #expect(parsed[1] == ServerSentEvent(event: "message", data: "next", id: "7", retry: nil))
    }

    @Test func anEventWithoutDataOrCutShortIsNotDispatched() throws {
        #expect(try events(["event: ping\n\n", "data: unfinished\n"]).isEmpty)
    }

    @Test func aLineOverTheBoundThrows() {
        #expect(throws: EventStreamError(.lineTooLong)) { try events([String(repeating: "x", count: 65)], maxLine: 64) }
    }

    @Test func theSequenceReadsEventsAsChunksArriveAndReportsABrokenStream() async throws {
        let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let events = ServerSentEvents(body: ResponseBody(chunks: stream, cancel: {}), parser: EventStreamParser())
        var iterator = events.makeAsyncIterator()
        continuation.yield(Array("data: first\n\nda".utf8))
        #expect(try await iterator.next()?.data == "first")
        continuation.yield(Array("ta: second\n\n".utf8))
        #expect(try await iterator.next()?.data == "second")
        continuation.finish(throwing: TransportError(.connectionLost, stage: .responseStarted))
        await #expect(throws: EventStreamError(.broken)) { try await iterator.next() }
    }
}
