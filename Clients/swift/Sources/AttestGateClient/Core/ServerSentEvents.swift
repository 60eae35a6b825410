/// The events of a streamed answer as they arrive (docs/streaming.md): an `AsyncSequence` that reads the
/// connection while the app iterates, so the first event shows while the provider still writes.
///
/// Iteration throws `EventStreamError` when the connection breaks or the stream leaves the parser's
/// bounds. A stream cut short (the route's `maxStreamSeconds` or `maxStreamBytes`, the provider's
/// connection) may just end: a transport that does not expose HTTP trailers cannot show the server's error
/// trailers, so an app that must know the answer is whole looks for the provider's own last event
/// (`[DONE]`, `message_stop`). Call `cancel()` to stop reading early (the connection is closed).
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent

    private let body: ResponseBody
    private let parser: EventStreamParser

    init(body: ResponseBody, parser: EventStreamParser) {
        self.body = body
        self.parser = parser
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: body.makeAsyncIterator(), parser: parser)
    }

    /// Stops the transfer; iteration ends.
    public func cancel() { body.cancel() }

    /// Reads the events one by one.
    public struct Iterator: AsyncIteratorProtocol {
        private var chunks: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        private var parser: EventStreamParser
        private var pending: [ServerSentEvent] = []
        private var ended = false

        init(chunks: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator, parser: EventStreamParser) {
            self.chunks = chunks
            self.parser = parser
        }

        public mutating func next() async throws -> ServerSentEvent? {
            while pending.isEmpty && !ended {
                let chunk: [UInt8]?
                do {
                    chunk = try await chunks.next()
                } catch {
                    ended = true
                    throw EventStreamError(.broken, detail: "\(error)")
                }
                guard let chunk else {
                    ended = true
                    break
                }
                pending += try parser.feed(chunk)
            }
            return pending.isEmpty ? nil : pending.removeFirst()
        }
    }
}
