import AttestCore
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
}
