internal import AttestCore
internal import Gate
internal import LambdaRuntime
internal import Synchronization

/// Passes a streamed upstream body to the client as it arrives: each piece the provider sent is
/// written on unchanged (one copy in, one out), with bounded memory and the route's limits.
///
/// How a stream ends (logged as `end` on one `stream ended` line with its bytes and duration):
/// - `complete`: the provider finished; the response ends normally;
/// - `provider_error`: the provider sent an error event; it is passed on and the stream ends there;
/// - `max_seconds` / `max_bytes`: the route's `maxStreamSeconds` / `maxStreamBytes` were reached; the
///   upstream connection is closed and the response ends with the error trailers;
/// - `upstream_failed`: the provider's connection broke (reset, timeout); error trailers;
/// - `client_closed`: the Runtime API took no more bytes; the upstream connection is closed.
enum StreamRelay {
    /// How long after a stream's deadline its last bytes and trailers may still take to leave before the
    /// response is given up (`StreamedResponse.sendBy`): a client that stopped reading holds the function
    /// for `maxStreamSeconds` plus this, not until Lambda's timeout.
    static let drainTime: Duration = .seconds(1)

    static func relay(
        _ upstream: UpstreamStream,
        to writer: any ResponseStreamWriter,
        logger: Logger
    ) async -> StreamCompletion {
        let started = ContinuousClock.now
        var bytes = 0
        var scanner = SSEErrorScanner()
        let end: String
        let completion: StreamCompletion
        let blocking = writer.blocking
        while true {
            // Once nothing waits to be read, the rest goes from the download's thread straight into the
            // response (`Forwarding`): no task hop and no hand-over per piece.
            if let blocking {
                let forwarding = Forwarding(upstream, to: blocking, bytes: bytes, scanner: scanner)
                if upstream.source.forward(to: { forwarding.take($0) }) {
                    let failure = await upstream.source.forwardingEnded()
                    (end, completion, bytes) = forwarding.outcome(failure)
                    break
                }
            }
            let chunk: [UInt8]?
            do {
                chunk = try await upstream.source.next()
            } catch {
                (end, completion) = ended(upstream, error)
                break
            }
            guard let chunk else {
                (end, completion) = ("complete", .finished)
                break
            }
            // `bytes` counts what was passed on: a piece over the limit is not.
            if bytes + chunk.count > upstream.maxBytes {
                (end, completion) = ("max_bytes", limit("stream.max_bytes"))
                break
            }
            bytes += chunk.count
            let providerError = scanner.scan(chunk)
            do {
                try await writer.write(chunk)
            } catch {
                (end, completion) = ("client_closed", failure("Runtime.StreamClosed", error.reason.slug))
                break
            }
            if providerError {
                (end, completion) = ("provider_error", .finished)
                break
            }
            if ContinuousClock.now >= upstream.deadline {
                (end, completion) = ("max_seconds", limit("stream.max_seconds"))
                break
            }
        }
        // Closes the provider's connection unless it already ended.
        upstream.source.cancel()
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        let fields: [String: JSONValue] = [
            "end": .string(end), "bytes": .int(Int64(bytes)), "durationMs": .int(milliseconds),
        ]
        if case .finished = completion {
            logger.info("stream ended", fields)
        } else {
            logger.warning("stream ended", fields)
        }
        return completion
    }

    /// How a stream that failed ends: past its deadline (or timed out) `max_seconds`, else `upstream_failed`.
    fileprivate static func ended(
        _ upstream: UpstreamStream,
        _ error: UpstreamStreamError
    ) -> (String, StreamCompletion) {
        if ContinuousClock.now >= upstream.deadline || error.reason == "http.timeout" {
            return ("max_seconds", limit("stream.max_seconds"))
        }
        return ("upstream_failed", failure("Upstream.StreamFailed", error.reason))
    }

    fileprivate static func limit(_ reason: String) -> StreamCompletion {
        failure("Upstream.StreamLimit", reason)
    }

    fileprivate static func failure(_ type: String, _ reason: String) -> StreamCompletion {
        .failed(FunctionError(type: type, message: reason))
    }
}

/// The relay's loop run on the download's own thread: each piece is counted, scanned for an error event
/// and written into the response with a blocking write (the download waits while the client is behind,
/// until the stream's deadline), with the same limits and ends as the async loop. The first stop wins;
/// the sink returns false then, which stops the transfer.
private final class Forwarding: Sendable {
    private struct State {
        var bytes: Int
        var scanner: SSEErrorScanner
        var stop: (end: String, completion: StreamCompletion)?
    }

    private let upstream: UpstreamStream
    private let writer: any BlockingStreamWriter
    private let state: Mutex<State>

    init(_ upstream: UpstreamStream, to writer: any BlockingStreamWriter, bytes: Int, scanner: SSEErrorScanner) {
        self.upstream = upstream
        self.writer = writer
        self.state = Mutex(State(bytes: bytes, scanner: scanner))
    }

    /// One piece, on the producer's thread; false once the stream must stop.
    func take(_ piece: UnsafeRawBufferPointer) -> Bool {
        let maxBytes = upstream.maxBytes
        let providerError = state.withLock { state -> Bool? in
            guard state.stop == nil else { return nil }
            if state.bytes + piece.count > maxBytes {
                state.stop = ("max_bytes", StreamRelay.limit("stream.max_bytes"))
                return nil
            }
            state.bytes += piece.count
            return state.scanner.scan(piece.assumingMemoryBound(to: UInt8.self))
        }
        guard let providerError else { return false }
        if let failure = writer.write(piece, deadline: upstream.deadline) {
            state.withLock { state in
                switch failure {
                case .deadline: state.stop = ("max_seconds", StreamRelay.limit("stream.max_seconds"))
                case .closed(let error):
                    state.stop = ("client_closed", StreamRelay.failure("Runtime.StreamClosed", error.reason.slug))
                }
            }
            return false
        }
        if providerError {
            state.withLock { $0.stop = ("provider_error", .finished) }
            return false
        }
        if ContinuousClock.now >= upstream.deadline {
            state.withLock { $0.stop = ("max_seconds", StreamRelay.limit("stream.max_seconds")) }
            return false
        }
        return true
    }

    /// How the forwarded stream ended, from the sink's stop or the transfer's end; and the bytes passed on.
    func outcome(_ failure: UpstreamStreamError?) -> (String, StreamCompletion, Int) {
        state.withLock { state in
            if let stop = state.stop { return (stop.end, stop.completion, state.bytes) }
            guard let failure else { return ("complete", .finished, state.bytes) }
            let (end, completion) = StreamRelay.ended(upstream, failure)
            return (end, completion, state.bytes)
        }
    }
}

/// Spots a provider's error event in server-sent events without keeping them: only the first bytes of
/// each line are looked at (Anthropic and OpenAI Responses `event: error`; OpenAI and Gemini
/// `data: {"error"…`; Anthropic and Responses `data: {"type":"error"…`, with any blanks JSON allows
/// between the tokens), so a line start split across two pieces is still seen, and memory stays a few
/// bytes. Lines end in LF, CR or CRLF, as the event-stream format says.
struct SSEErrorScanner {
    /// The most of a line's start kept: enough for `data:` and `{"type" : "error"` with some blanks.
    private static let longest = 64

    /// The start of the current line, up to `longest` bytes, until it has been checked.
    private var lineHead: [UInt8] = []
    private var checked = false

    /// Whether `chunk` (following the earlier ones) contains the start of an error event.
    mutating func scan(_ chunk: [UInt8]) -> Bool {
        chunk.withUnsafeBufferPointer { scan($0) }
    }

    /// Only line starts are read: the line ends are found with `memchr`, so a long event costs a few
    /// vector compares per cache line, not a Swift loop per byte.
    mutating func scan(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        var found = false
        var position = 0
        while position < chunk.count {
            let lineEnd = Bytes.lineEnd(in: chunk, from: position)
            let end: Int? = lineEnd < chunk.count ? lineEnd : nil
            let segmentEnd = end ?? chunk.count
            if !checked {
                let take = min(segmentEnd - position, Self.longest - lineHead.count)
                lineHead += UnsafeBufferPointer(rebasing: chunk[position..<(position + take)])
                if lineHead.count >= Self.longest || end != nil {
                    if Self.isErrorLine(lineHead) { found = true }
                    checked = true
                }
            }
            guard let end else { break }
            lineHead.removeAll(keepingCapacity: true)
            checked = false
            position = end + 1
        }
        return found
    }

    /// `event:` then `error`; or `data:` then a JSON object whose first member is `"error"` or is
    /// `"type"` with the value `"error"`.
    static func isErrorLine(_ line: [UInt8]) -> Bool {
        var cursor = LineCursor(line)
        if cursor.take("event:") {
            cursor.skipBlanks()
            return cursor.take("error") && (cursor.atEnd || cursor.takeBlank())
        }
        guard cursor.take("data:") else { return false }
        cursor.skipBlanks()
        guard cursor.take("{") else { return false }
        cursor.skipBlanks()
        if cursor.take(#""error""#) { return true }
        guard cursor.take(#""type""#) else { return false }
        cursor.skipBlanks()
        guard cursor.take(":") else { return false }
        cursor.skipBlanks()
        return cursor.take(#""error""#)
    }

    private struct LineCursor {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }

        mutating func take(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let matches = literal.withUTF8Buffer { literal in
                (0..<count).allSatisfy { bytes[index + $0] == literal[$0] }
            }
            if matches { index += count }
            return matches
        }

        mutating func takeBlank() -> Bool {
            guard !atEnd, bytes[index] == 0x20 || bytes[index] == 0x09 else { return false }
            index += 1
            return true
        }

        mutating func skipBlanks() {
            while takeBlank() {}
        }
    }
}
