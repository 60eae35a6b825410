import AttestCore
import Dispatch
import Gate
import LambdaRuntime
import Synchronization
import TestSupport
import Testing

@testable import App

@Suite struct StreamedRouteSettingTests {
    let settings = RoutesSettingTests()

    @Test func streamFieldsAreReadWithTheirDefaults() throws {
        let parsed = try settings.routes(
            #"[{"method":"POST","path":"/a","feature":"a","stream":true},"#
                + #"{"method":"POST","path":"/b","feature":"b","stream":true,"maxStreamSeconds":20,"maxStreamBytes":1000}]"#
        )
        #expect(parsed[0].stream && parsed[0].maxStreamSeconds == 60)
        #expect(parsed[0].maxStreamBytes == MeteredRoute.defaultMaxStreamBytes)
        #expect(parsed[1].maxStreamSeconds == 20 && parsed[1].maxStreamBytes == 1000)
        #expect(try settings.routes(#"[{"method":"POST","path":"/a","feature":"a"}]"#)[0].stream == false)
    }

    @Test(arguments: [
        (#"[{"method":"POST","path":"/a","feature":"a","stream":"yes"}]"#, "stream must be true or false"),
        (
            #"[{"method":"POST","path":"/a","feature":"a","stream":true,"maxStreamSeconds":0}]"#,
            "maxStreamSeconds must be"
        ),
        (
            #"[{"method":"POST","path":"/a","feature":"a","stream":true,"maxStreamSeconds":901}]"#,
            "maxStreamSeconds must be"
        ),
        (
            #"[{"method":"POST","path":"/a","feature":"a","stream":true,"maxStreamBytes":30000000}]"#,
            "maxStreamBytes must be"
        ),
        (#"[{"method":"POST","path":"/a","feature":"a","maxStreamSeconds":5}]"#, "need stream: true"),
    ])
    func badStreamFieldsAreNamed(json: String, fragment: String) {
        let detail = settings.problem(json)
        #expect(detail?.contains(fragment) == true, "\(detail ?? "accepted")")
    }
}

/// An upstream body from a script: pieces, then the end or a failure; records `cancel()`.
final class ScriptedSource: UpstreamEventSource {
    private let state: Mutex<(pieces: [[UInt8]], cancelled: Bool)>
    private let failure: UpstreamStreamError?

    init(_ pieces: [String], failure: UpstreamStreamError? = nil) {
        state = Mutex((pieces.map { Array($0.utf8) }, false))
        self.failure = failure
    }

    var cancelled: Bool { state.withLock { $0.cancelled } }

    func next() async throws(UpstreamStreamError) -> [UInt8]? {
        let piece = state.withLock { $0.pieces.isEmpty ? nil : $0.pieces.removeFirst() }
        if let piece { return piece }
        if let failure { throw failure }
        return nil
    }

    func cancel() { state.withLock { $0.cancelled = true } }
}

final class CollectingWriter: ResponseStreamWriter {
    private let state = Mutex<[[UInt8]]>([])
    var pieces: [String] { state.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }
    func write(_ bytes: [UInt8]) async throws(RuntimeAPIError) { state.withLock { $0.append(bytes) } }
}

/// A source that forwards: `queued` pieces are read with `next()`; once the relay installs its sink, a
/// producer thread hands `later` to it, as libcurl's write callback does, and stops when the sink says so.
final class ForwardingSource: UpstreamEventSource {
    private struct State {
        var queued: [[UInt8]]
        var cancelled = false
        var ended = false
        var failure: UpstreamStreamError?
        var waiter: CheckedContinuation<Void, Never>?
        var forwarded = 0
    }

    private let state: Mutex<State>
    private let later: [[UInt8]]
    private let endFailure: UpstreamStreamError?

    init(queued: [String], later: [String], failure: UpstreamStreamError? = nil) {
        state = Mutex(State(queued: queued.map { Array($0.utf8) }))
        self.later = later.map { Array($0.utf8) }
        self.endFailure = failure
    }

    var cancelled: Bool { state.withLock { $0.cancelled } }
    /// Pieces the sink took.
    var forwarded: Int { state.withLock { $0.forwarded } }

    func next() async throws(UpstreamStreamError) -> [UInt8]? {
        state.withLock { $0.queued.isEmpty ? nil : $0.queued.removeFirst() }
    }

    func cancel() { state.withLock { $0.cancelled = true } }

    func forward(to sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard state.withLock({ $0.queued.isEmpty && !$0.ended }) else { return false }
        let later = self.later
        let endFailure = self.endFailure
        DispatchQueue(label: "producer").async { [self] in
            var failure = endFailure
            for piece in later {
                state.withLock { $0.forwarded += 1 }
                if !piece.withUnsafeBytes({ sink($0) }) {
                    failure = UpstreamStreamError("http.cancelled")
                    break
                }
            }
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.ended = true
                state.failure = failure
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
        return true
    }

    func forwardingEnded() async -> UpstreamStreamError? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.ended { return true }
                state.waiter = continuation
                return false
            }
            if now { continuation.resume() }
        }
        return state.withLock { $0.failure }
    }
}

/// Keeps every piece, from `write` and from its blocking side alike.
final class BlockingCollectingWriter: ResponseStreamWriter, BlockingStreamWriter {
    private let state = Mutex<[[UInt8]]>([])
    var pieces: [String] { state.withLock { $0.map { String(decoding: $0, as: UTF8.self) } } }
    func write(_ bytes: [UInt8]) async throws(RuntimeAPIError) { state.withLock { $0.append(bytes) } }
    var blocking: (any BlockingStreamWriter)? { self }
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) -> BlockingWriteFailure? {
        state.withLock { $0.append([UInt8](bytes)) }
        return nil
    }
}

@Suite struct StreamRelayTests {
    let logs = CapturingLogSink()
    var logger: Logger { Logger(level: .debug, sink: logs) }

    func relay(
        _ source: ScriptedSource,
        maxBytes: Int = 1 << 20,
        seconds: Int = 60
    ) async -> (StreamCompletion, [String]) {
        let stream = UpstreamStream(source: source, deadline: .now + .seconds(seconds), maxBytes: maxBytes)
        let writer = CollectingWriter()
        let completion = await StreamRelay.relay(stream, to: writer, logger: logger)
        return (completion, writer.pieces)
    }

    @Test func everyPieceIsPassedOnUnchangedInOrder() async {
        let source = ScriptedSource(["data: a\n\n", "data: b", "\n\ndata: [DONE]\n\n"])
        let (completion, pieces) = await relay(source)
        #expect(completion == .finished)
        #expect(pieces == ["data: a\n\n", "data: b", "\n\ndata: [DONE]\n\n"])
        #expect(logs.objects.contains { $0["end"]?.stringValue == "complete" && $0["bytes"]?.intValue == 32 })
    }

    @Test func aProviderErrorEventIsPassedOnAndEndsTheStream() async {
        let source = ScriptedSource(["data: a\n\nevent: err", "or\ndata: {\"type\":\"error\"}\n\n", "data: never\n\n"])
        let (completion, pieces) = await relay(source)
        #expect(completion == .finished)
        #expect(pieces.count == 2)
        #expect(source.cancelled)
        #expect(logs.objects.contains { $0["end"]?.stringValue == "provider_error" })
    }

    @Test func theByteLimitClosesTheUpstreamAndEndsWithTheLimitTrailer() async {
        let source = ScriptedSource(["12345", "67890", "abcde"])
        let (completion, pieces) = await relay(source, maxBytes: 8)
        #expect(completion == .failed(FunctionError(type: "Upstream.StreamLimit", message: "stream.max_bytes")))
        #expect(pieces == ["12345"])
        #expect(source.cancelled)
        // The line counts what was passed on, not the piece that was not.
        #expect(logs.objects.contains { $0["end"]?.stringValue == "max_bytes" && $0["bytes"]?.intValue == 5 })
    }

    @Test func aBrokenUpstreamEndsWithTheFailureTrailer() async {
        let source = ScriptedSource(["data: a\n\n"], failure: UpstreamStreamError("http.connection_reset"))
        let (completion, pieces) = await relay(source)
        #expect(completion == .failed(FunctionError(type: "Upstream.StreamFailed", message: "http.connection_reset")))
        #expect(pieces == ["data: a\n\n"])
        let timedOut = ScriptedSource([], failure: UpstreamStreamError("http.timeout"))
        #expect(
            await relay(timedOut).0
                == .failed(FunctionError(type: "Upstream.StreamLimit", message: "stream.max_seconds"))
        )
    }

    /// Once nothing waits to be read, the rest goes from the producer's thread into the writer's blocking
    /// side: the same pieces in the same order, the same limits and ends.
    @Test func forwardedPiecesKeepTheirOrderLimitsAndEnds() async {
        let writer = BlockingCollectingWriter()
        let source = ForwardingSource(queued: ["data: a\n\n"], later: ["data: b\n\n", "data: c\n\n"])
        let stream = UpstreamStream(source: source, deadline: .now + .seconds(60), maxBytes: 1 << 20)
        #expect(await StreamRelay.relay(stream, to: writer, logger: logger) == .finished)
        #expect(writer.pieces == ["data: a\n\n", "data: b\n\n", "data: c\n\n"])
        #expect(source.forwarded == 2)
        #expect(logs.objects.contains { $0["end"]?.stringValue == "complete" && $0["bytes"]?.intValue == 27 })

        let errorWriter = BlockingCollectingWriter()
        let erring = ForwardingSource(
            queued: [],
            later: ["data: a\n\n", "event: error\ndata: {}\n\n", "data: never\n\n"]
        )
        let errorStream = UpstreamStream(source: erring, deadline: .now + .seconds(60), maxBytes: 1 << 20)
        #expect(await StreamRelay.relay(errorStream, to: errorWriter, logger: logger) == .finished)
        #expect(errorWriter.pieces == ["data: a\n\n", "event: error\ndata: {}\n\n"])
        #expect(logs.objects.contains { $0["end"]?.stringValue == "provider_error" })

        let limitWriter = BlockingCollectingWriter()
        let long = ForwardingSource(queued: [], later: ["12345", "67890", "abcde"])
        let limited = UpstreamStream(source: long, deadline: .now + .seconds(60), maxBytes: 8)
        #expect(
            await StreamRelay.relay(limited, to: limitWriter, logger: logger)
                == .failed(FunctionError(type: "Upstream.StreamLimit", message: "stream.max_bytes"))
        )
        #expect(limitWriter.pieces == ["12345"])
        #expect(long.cancelled)

        let broken = ForwardingSource(
            queued: [],
            later: ["data: a\n\n"],
            failure: UpstreamStreamError("http.connection_reset")
        )
        let brokenStream = UpstreamStream(source: broken, deadline: .now + .seconds(60), maxBytes: 1 << 20)
        #expect(
            await StreamRelay.relay(brokenStream, to: BlockingCollectingWriter(), logger: logger)
                == .failed(FunctionError(type: "Upstream.StreamFailed", message: "http.connection_reset"))
        )
    }
}

@Suite struct SSEErrorScannerTests {
    func scan(_ pieces: [String]) -> [Bool] {
        var scanner = SSEErrorScanner()
        return pieces.map { scanner.scan(Array($0.utf8)) }
    }

    @Test func ordinaryEventsAreNotErrors() {
        #expect(scan(["event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n"]) == [false])
        #expect(
            scan(["data: {\"choices\":[{\"delta\":{\"content\":\"error\"}}]}\n\n", "event: message_stop\n"]) == [
                false, false,
            ]
        )
        #expect(scan(["data: x\n\n event: error\n"]) == [false])  // not at a line start
    }

    @Test func errorEventsAreFoundWhereverThePiecesSplit() {
        #expect(scan(["event: error\ndata: {}\n\n"]) == [true])
        #expect(scan(["data: ok\n\nev", "ent: er", "ror\n"]) == [false, false, true])
        #expect(scan(["data: {\"err", "or\":{\"code\":503}}\n\n"]) == [false, true])
        #expect(scan(["data: {\"type\":\"error\",\"error\":{}}\n\n"]) == [true])
    }

    @Test func carriageReturnsEndLinesAndJSONMayHaveBlanks() {
        // CR alone and CRLF end lines as LF does (the usage reader reads them the same way).
        #expect(scan(["data: ok\r\rdata: {\"error\":{\"message\":\"boom\"}}\r\r"]) == [true])
        #expect(scan(["data: ok\r\n\r\nevent: error\r\ndata: {}\r\n\r\n"]) == [true])
        #expect(scan(["data: ok\r", "event: error\r"]) == [false, true])
        // Blanks JSON allows between the tokens.
        #expect(scan(["data: { \"error\": {}}\n\n"]) == [true])
        #expect(scan(["data:{\t\"type\" : \"error\",\"error\":{}}\n\n"]) == [true])
        #expect(scan(["event:  error \n"]) == [true])
        // Not errors: another type, another first member, an event type that only starts with `error`.
        #expect(scan(["data: {\"type\": \"message_delta\",\"error\":1}\n\n"]) == [false])
        #expect(scan(["data: {\"id\":\"x\",\"error\":null}\n\n"]) == [false])
        #expect(scan(["event: errors_summary\n"]) == [false])
    }
}
