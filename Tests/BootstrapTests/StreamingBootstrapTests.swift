import AWSJSON
import AttestCore
import Crypto
import Dispatch
import DynamoDB
import FoundationEssentials
import Glibc
import HTTPClient
import TestSupport
import Testing

/// `local-harness/fake_upstream.py` in a child process: the streaming AI provider (SSE in three dialects).
final class FakeUpstreamProcess: Sendable {
    let process: ChildProcess
    let url: String
    let keyFile: String
    let transport = CurlTransport()

    init() async throws {
        keyFile = TestFiles.path("stream-upstream-key")
        try Data((BootstrapTests.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        process = try ChildProcess(
            ["python3", LocalHarness.packageRoot + "/local-harness/fake_upstream.py", "--key-file", keyFile],
            environment: ["PATH": path, "LANG": "C.UTF-8"]
        )
        let process = self.process
        let first = await withCheckedContinuation { continuation in
            DispatchQueue(label: "upstream-ready").async { continuation.resume(returning: process.readLine()) }
        }
        let line = try #require(first, "the fake upstream did not start")
        url = try #require(try JSONValue.parse(Array(line.utf8))["url"]?.stringValue)
    }

    deinit { process.terminate() }

    /// Every stream the upstream served: `path`, `events`, `bytes`, `started`, `firstEventAt`,
    /// `lastEventAt`, `closedAt` (epoch seconds), `outcome`.
    func streams() async throws -> [JSONValue] {
        let response = try await transport.send(HTTPRequest(method: "GET", url: url + "/control/streams"))
        return try #require(try JSONValue.parse(response.body).arrayValue)
    }

    func failNext(status: Int) async throws {
        _ = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: url + "/control/fail",
                body: Array(#"{"status":\#(status),"count":1}"#.utf8)
            )
        )
    }
}

extension JSONValue {
    /// A JSON number as a Double (epoch timestamps with fractions).
    var number: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }
}

/// What a streaming client saw: the head, and each piece with the wall-clock time it arrived.
struct ReceivedStream {
    var head: ResponseBodyStream.Head
    var pieces: [(at: Double, bytes: Int)] = []
    var text: [UInt8] = []
    var failure: HTTPError?

    var bytes: Int { pieces.reduce(0) { $0 + $1.bytes } }
}

extension LocalHarness {
    /// A request through the front (`front`: the HTTP API's by default) whose answer is read as it arrives;
    /// `keepText` bytes are kept, and `hangUpAfter` pieces the client closes the connection.
    func stream(
        _ path: String,
        device: String,
        body: String,
        keepText: Int = 1 << 16,
        hangUpAfter: Int? = nil,
        front: String? = nil
    ) async throws -> ReceivedStream {
        let stream = ResponseBodyStream(capacity: 1 << 16)
        let head = try await transport.open(
            HTTPRequest(
                method: "POST",
                url: (front ?? http) + path,
                headers: [HTTPHeader("X-Device-ID", device)],
                body: Array(body.utf8),
                timeout: .seconds(30)
            ),
            into: stream
        )
        var received = ReceivedStream(head: head)
        do {
            while let piece = try await stream.next() {
                received.pieces.append((Date().timeIntervalSince1970, piece.count))
                if received.text.count < keepText { received.text += piece.prefix(keepText - received.text.count) }
                if let hangUpAfter, received.pieces.count >= hangUpAfter {
                    stream.cancel()
                    break
                }
            }
        } catch {
            received.failure = error
        }
        return received
    }

    /// The bootstrap's peak resident memory (`VmHWM`, bytes) from /proc.
    func bootstrapPeakRSS() async throws -> Int {
        let instances = try await get("/instances")
        let pid = try #require(instances.arrayValue?.first?["pid"]?.intValue)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }
}

/// Streamed routes end to end: the real `bootstrap` behind the local harness (Runtime API streaming
/// POST, HTTP front forwarding chunks), the fake provider streaming SSE, the table on moto.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct StreamingBootstrapTests {
    static func routes(maxStreamSeconds: Int = 5) -> String {
        #"[{"method":"POST","path":"/v1/tutor","feature":"tutor","mode":"monitor","upstreamPath":"/v1/chat/completions","#
            + #""allowance":{"firstDay":1000,"laterDays":1000},"stream":true,"maxStreamSeconds":\#(maxStreamSeconds)},"#
            + #"{"method":"POST","path":"/v1/none","feature":"none","mode":"monitor","upstreamPath":"/v1/messages","#
            + #""allowance":{"firstDay":0,"laterDays":0},"stream":true},"#
            + #"{"method":"POST","path":"/v1/slow","feature":"slow","mode":"off","upstreamPath":"/v1/hang","#
            + #""upstreamTimeoutMs":700,"allowance":{"firstDay":1000,"laterDays":1000},"stream":true},"#
            + #"{"method":"POST","path":"/v1/generate","feature":"generate","mode":"off","upstreamPath":"/generate","#
            + #""allowance":{"firstDay":1000,"laterDays":1000}}]"#
    }

    static func start(
        _ upstream: FakeUpstreamProcess,
        maxStreamSeconds: Int = 5,
        upstreamURL: String? = nil
    ) async throws -> LocalHarness {
        _ = BootstrapTests.tableReady
        let environment = [
            "ATTESTGATE_ENV": "development", "TABLE_NAME": BootstrapTests.table, "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": BootstrapTests.dynamoDBEndpoint ?? "", "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing", "GATE_MODE": "monitor", "UPSTREAM_URL": upstreamURL ?? upstream.url,
            "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "info",
            "ROUTES": routes(maxStreamSeconds: maxStreamSeconds),
        ]
        return try await LocalHarness(environment: environment, deadlineMs: 30_000)
    }

    static func device() -> String { UUID().uuidString.lowercased() }

    @Test func theFirstEventReachesTheClientWhileTheUpstreamIsStillSending() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let received = try await harness.stream(
            "/v1/tutor",
            device: Self.device(),
            body: #"{"stream":true,"events":12,"intervalMs":250,"question":"why is the sky blue?"}"#
        )
        #expect(received.head.status == 200)
        #expect(received.head.header("content-type") == "text/event-stream")
        #expect(received.head.header("x-quota-remaining") != nil)
        #expect(received.failure == nil)
        let served = try #require(try await upstream.streams().last)
        #expect(served["outcome"]?.stringValue == "complete")
        #expect(received.bytes == served["bytes"]?.intValue.map { Int($0) })
        let firstArrived = try #require(received.pieces.first?.at)
        let lastSent = try #require(served["lastEventAt"]?.number)
        // Thirteen events 250 ms apart: the client has its first one while the upstream is still sending.
        #expect(firstArrived < lastSent - 0.5, "first piece at \(firstArrived), last event sent at \(lastSent)")
        #expect(received.pieces.count >= 3, "the answer arrived in \(received.pieces.count) piece(s)")
        #expect(String(decoding: received.text, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
    }

    /// The harness's Function URL front, as infra/ serves streamed routes: a streamed route streams through it,
    /// a buffered route there is `404 not_found` (as a one-chunk stream), and the same buffered route through
    /// the HTTP API front still answers.
    @Test func throughTheFunctionURLFrontOnlyStreamedRoutesAnswer() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let device = Self.device()
        let received = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":4,"intervalMs":50,"question":"why?"}"#,
            front: harness.functionURL
        )
        #expect(received.head.status == 200)
        #expect(received.head.header("content-type") == "text/event-stream")
        #expect(String(decoding: received.text, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
        let buffered = try await harness.stream(
            "/v1/generate",
            device: device,
            body: #"{"text":"cells","cards":2}"#,
            front: harness.functionURL
        )
        #expect(buffered.head.status == 404)
        #expect(String(decoding: buffered.text, as: UTF8.self) == #"{"error":"not_found"}"#)
        let invocations = try await harness.get("/invocations")
        let last = try #require(invocations.arrayValue?.last)
        #expect(last["outcome"]?.stringValue == "stream", "a Function URL answer is a stream: \(last)")
        let direct = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: #"{"text":"cells","cards":2}"#
        )
        #expect(direct.status == 200)
    }

    @Test func anErrorAfterTheFirstByteArrivesAsTrailersAndTheLoopServesTheNextInvocation() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let device = Self.device()
        let cut = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":6,"intervalMs":20,"cutAfter":2,"question":"q"}"#
        )
        #expect(cut.head.status == 200)
        #expect(cut.bytes > 0)
        let invocations = try #require(try await harness.get("/invocations").arrayValue)
        let stream = try #require(invocations.last?["stream"])
        #expect(stream["errorType"]?.stringValue == "Upstream.StreamFailed")
        let body = try JSONValue.parse(Array(try #require(stream["errorBody"]?.stringValue).utf8))
        #expect(body["errorType"]?.stringValue == "Upstream.StreamFailed")
        #expect(body["errorMessage"]?.stringValue == "http.connection_reset")

        // The same bootstrap goes on: a buffered call, then a whole stream.
        let buffered = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: #"{"question":"after"}"#
        )
        #expect(buffered.status == 200)
        #expect(buffered.header("content-type") == "application/json")
        let whole = try await harness.stream("/v1/tutor", device: device, body: #"{"stream":true,"events":3}"#)
        #expect(whole.failure == nil && String(decoding: whole.text, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
        let instances = try await harness.get("/instances")
        #expect(instances.arrayValue?.first?["restarts"]?.intValue == 0)
    }

    /// Streamed responses go out on a kept Runtime API connection; one that ended with trailers is never
    /// reused (libcurl 7.88 keeps that handle's trailer state), and the streams after it are whole.
    @Test func streamedResponsesReuseTheRuntimeConnectionExceptAfterTrailers() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let device = Self.device()
        func lastConnection() async throws -> Int64 {
            let invocations = try #require(try await harness.get("/invocations").arrayValue)
            return try #require(invocations.last?["stream"]?["connection"]?.intValue)
        }
        func whole() async throws -> Int64 {
            let received = try await harness.stream("/v1/tutor", device: device, body: #"{"stream":true,"events":3}"#)
            #expect(received.failure == nil)
            #expect(String(decoding: received.text, as: UTF8.self).hasSuffix("data: [DONE]\n\n"))
            return try await lastConnection()
        }
        var clean: [Int64] = []
        for _ in 0..<3 { clean.append(try await whole()) }
        #expect(clean[1] == clean[0] && clean[2] == clean[0], "POSTed on connections \(clean)")

        let cut = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":6,"intervalMs":20,"cutAfter":2,"question":"q"}"#
        )
        #expect(cut.bytes > 0)
        let trailed = try await lastConnection()
        let invocations = try #require(try await harness.get("/invocations").arrayValue)
        #expect(invocations.last?["stream"]?["errorType"]?.stringValue == "Upstream.StreamFailed")
        var after: [Int64] = []
        for _ in 0..<3 { after.append(try await whole()) }
        #expect(!after.contains(trailed), "a connection of the handle that sent trailers was reused: \(after)")
        #expect(after[2] == after[1], "POSTed on connections \(after)")
    }

    @Test func aTenMegabyteStreamLeavesTheBootstrapMemoryWithinOneMebibyteOfAShortOne() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream, maxStreamSeconds: 60)
        let device = Self.device()
        // Warm every path up first, then measure the peak after a short stream and after a long one.
        for _ in 0..<3 {
            _ = try await harness.stream(
                "/v1/tutor",
                device: device,
                body: #"{"stream":true,"events":40,"eventBytes":16000,"intervalMs":0}"#
            )
        }
        let short = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":40,"eventBytes":16000,"intervalMs":0}"#
        )
        #expect(short.failure == nil)
        let afterShort = try await harness.bootstrapPeakRSS()
        let long = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":640,"eventBytes":16000,"intervalMs":0}"#,
            keepText: 0
        )
        #expect(long.failure == nil)
        #expect(long.bytes > 10_000_000)
        let afterLong = try await harness.bootstrapPeakRSS()
        #expect(
            afterLong - afterShort < 1 << 20,
            "peak RSS \(afterShort) after a short stream, \(afterLong) after 10 MB"
        )
    }

    @Test func aClientThatHangsUpDoesNotKeepTheUpstreamPastMaxStreamSeconds() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream, maxStreamSeconds: 2)
        let started = Date().timeIntervalSince1970
        let gone = try await harness.stream(
            "/v1/tutor",
            device: Self.device(),
            body: #"{"stream":true,"forever":true,"intervalMs":50}"#,
            hangUpAfter: 1
        )
        #expect(gone.head.status == 200)
        let closed = try await harness.eventually(seconds: 8) {
            try await upstream.streams().last?["closedAt"]?.number != nil
        }
        #expect(closed, "the upstream connection is still open")
        let served = try #require(try await upstream.streams().last)
        let closedAt = try #require(served["closedAt"]?.number)
        #expect(closedAt - started < 2 + 1.5, "upstream closed \(closedAt - started) s after the call started")
        #expect(served["outcome"]?.stringValue == "client_gone")
        let stream = try #require(try await harness.get("/invocations").arrayValue?.last?["stream"])
        #expect(stream["errorType"]?.stringValue == "Upstream.StreamLimit")
        #expect(stream["clientGone"]?.boolValue == true)
    }

    /// A client that stops reading without hanging up: the harness front stops taking the POST's bytes, so
    /// the bootstrap's last write waits. The upstream is closed at `maxStreamSeconds` and the POST given up
    /// a moment after (`StreamedResponse.sendBy`), so the same instance serves the next call at once, not
    /// after Lambda's timeout (here the harness's 30 s) and a restart.
    @Test func aClientThatStopsReadingDoesNotHoldTheFunctionPastMaxStreamSeconds() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream, maxStreamSeconds: 2)
        let started = ContinuousClock.now
        // Read the head, then nothing: 16 kB events as fast as the provider can send them fill every
        // buffer on the way within the limit.
        let stalled = ResponseBodyStream(capacity: 1 << 16)
        let head = try await harness.transport.open(
            HTTPRequest(
                method: "POST",
                url: harness.http + "/v1/tutor",
                headers: [HTTPHeader("X-Device-ID", Self.device())],
                body: Array(#"{"stream":true,"forever":true,"eventBytes":16000,"intervalMs":0}"#.utf8),
                timeout: .seconds(60)
            ),
            into: stalled
        )
        defer { stalled.cancel() }
        #expect(head.status == 200)
        try await Task.sleep(for: .milliseconds(500))
        let next = try await harness.stream(
            "/v1/tutor",
            device: Self.device(),
            body: #"{"stream":true,"events":2,"intervalMs":0}"#
        )
        let waited = ContinuousClock.now - started
        #expect(next.failure == nil && next.head.status == 200)
        // maxStreamSeconds (2) + drainTime (1) + libcurl's progress tick (≤ 1) + slack.
        #expect(waited < .seconds(7), "the next call was served \(waited) after the stalled one started")
        let instances = try await harness.get("/instances")
        #expect(instances.arrayValue?.first?["restarts"]?.intValue == 0, "\(instances)")
        let logs = try await harness.get("/logs")
        let abandoned = logs.arrayValue?.contains { entry in
            entry["line"]?.stringValue?.contains("runtime.stream_abandoned") == true
        }
        #expect(abandoned == true, "no log line says the POST was given up")
    }

    /// The POST to the Runtime API starts only once the provider's request is about to go out: a provider
    /// that cannot be reached gets no stream started, and the client a buffered JSON answer with its units back.
    @Test func aProviderThatCannotBeReachedGetsABufferedAnswerAndNoStream() async throws {
        let upstream = try await FakeUpstreamProcess()
        let unreachable = "http://127.0.0.1:\(try LoopbackHTTPServer.unusedPort())"
        let harness = try await Self.start(upstream, upstreamURL: unreachable)
        let device = Self.device()
        let body = #"{"stream":true,"events":2}"#
        let first = try await harness.request(
            "POST",
            "/v1/tutor",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: body
        )
        #expect(first.status == 502)
        #expect(String(decoding: first.body, as: UTF8.self) == #"{"error":"upstream_unavailable"}"#)
        #expect(first.header("content-length") != nil)
        #expect(first.header("transfer-encoding") == nil)
        let invocation = try #require(try await harness.get("/invocations").arrayValue?.last)
        #expect(invocation["stream"] == nil || invocation["stream"] == .null, "a stream was started: \(invocation)")
        #expect(invocation["outcome"]?.stringValue == "response")
        // Nothing was sent, so nothing could be billed: the unit came back (the same count again).
        let second = try await harness.request(
            "POST",
            "/v1/tutor",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: body
        )
        #expect(second.status == 502)
        let remaining = try #require(first.header("x-quota-remaining"))
        #expect(second.header("x-quota-remaining") == remaining)
    }

    @Test func refusalsAndFailuresBeforeTheFirstByteAreOrdinaryJSONAnswers() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let device = Self.device()
        // A layer refuses (this route's allowance is zero): a plain JSON answer, never a stream.
        let refused = try await harness.request(
            "POST",
            "/v1/none",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: #"{"stream":true}"#
        )
        #expect(refused.status == 429)
        #expect(String(decoding: refused.body, as: UTF8.self) == #"{"error":"quota_exhausted"}"#)
        #expect(refused.header("content-length") != nil)
        let invalid = try await harness.request("POST", "/v1/tutor", body: #"{"stream":true}"#)
        #expect(invalid.status == 400)
        #expect(String(decoding: invalid.body, as: UTF8.self) == #"{"error":"invalid_device_id"}"#)

        let first = try await harness.stream("/v1/tutor", device: device, body: #"{"stream":true,"events":2}"#)
        let remaining = try #require(first.head.header("x-quota-remaining").flatMap { Int($0) })
        // The provider fails before its first byte: 502 JSON, and the units come back as for a buffered call.
        try await upstream.failNext(status: 503)
        let failed = try await harness.request(
            "POST",
            "/v1/tutor",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: #"{"stream":true,"events":2}"#
        )
        #expect(failed.status == 502)
        #expect(String(decoding: failed.body, as: UTF8.self) == #"{"error":"upstream_unavailable"}"#)
        #expect(failed.header("x-quota-remaining") == String(remaining))
        // A stream cut before its end keeps its units: the next call sees one fewer each time.
        let cut = try await harness.stream(
            "/v1/tutor",
            device: device,
            body: #"{"stream":true,"events":4,"cutAfter":1}"#
        )
        #expect(cut.head.header("x-quota-remaining") == String(remaining - 1))
        let next = try await harness.stream("/v1/tutor", device: device, body: #"{"stream":true,"events":1}"#)
        #expect(next.head.header("x-quota-remaining") == String(remaining - 2))
    }

    /// The streamed POST starts once the call is admitted, while the provider works: a provider that then
    /// times out still gets the documented `504 upstream_unavailable` JSON answer, carried by that POST
    /// (its status in the prelude), and the loop serves the next call.
    @Test func aStreamStartedBeforeTheProviderAnswersStillTurnsALaterFailureIntoTheJSONAnswer() async throws {
        let upstream = try await FakeUpstreamProcess()
        let harness = try await Self.start(upstream)
        let device = Self.device()
        let failed = try await harness.request(
            "POST",
            "/v1/slow",
            headers: [HTTPHeader("X-Device-ID", device)],
            body: #"{"stream":true}"#
        )
        #expect(failed.status == 504)
        #expect(String(decoding: failed.body, as: UTF8.self) == #"{"error":"upstream_unavailable"}"#)
        #expect(failed.header("x-quota-remaining") != nil)
        // The POST was at the Runtime API while the provider still had not answered (it timed out at 700 ms).
        let invocations = try #require(try await harness.get("/invocations").arrayValue)
        let stream = try #require(invocations.last?["stream"], "the answer was not posted as a stream")
        #expect((stream["seconds"]?.number ?? 0) >= 0.4)
        #expect(stream["errorType"] == .null)
        let next = try await harness.stream("/v1/tutor", device: device, body: #"{"stream":true,"events":2}"#)
        #expect(next.head.status == 200)
        #expect(next.failure == nil)
    }

    /// Today's `cost` (micro-USD) on the ceiling row `AI_BUDGET#{day}` / `TOTAL`.
    static func costUsed() async throws -> Int64 {
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": BootstrapTests.dynamoDBEndpoint ?? "",
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        let day = String(Date().formatted(.iso8601.year().month().day().dateSeparator(.dash)))
        let item = try await client.getItem(
            Table(name: BootstrapTests.table),
            key: ["PK": .s("AI_BUDGET#\(day)"), "SK": .s("TOTAL")],
            deadline: .after(.seconds(5))
        )
        guard case .n(let text)? = item?["cost"] else { return 0 }
        return Int64(text) ?? 0
    }

    @Test func aStreamSettlesToItsFinalUsageAndOneCutBeforeItsUsageKeepsTheReservation() async throws {
        let upstream = try await FakeUpstreamProcess()
        _ = BootstrapTests.tableReady
        // One token costs one USD (1e6 micro-USD) either way, so the settled cost reads as tokens.
        let route =
            #"[{"method":"POST","path":"/v1/chat","feature":"chat_stream","mode":"monitor","#
            + #""upstreamPath":"/v1/chat/completions","dialect":"openai-chat","models":["fake"],"maxOutputTokens":50,"#
            + #""prices":{"fake":{"inputPerMTok":1000000,"outputPerMTok":1000000}},"stream":true,"#
            // The fake provider's knobs, through the closed world as an operator's priced fields would go.
            + #""allowFields":["cutAfter"],"#
            + #""allowance":{"firstDay":1000,"laterDays":1000}}]"#
        let harness = try await LocalHarness(
            environment: [
                "ATTESTGATE_ENV": "development", "TABLE_NAME": BootstrapTests.table, "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": BootstrapTests.dynamoDBEndpoint ?? "", "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "GATE_MODE": "monitor", "UPSTREAM_URL": upstream.url,
                "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "info", "ROUTES": route,
                "AI_DAILY_COST_CEILING_USD": "1000000",
            ],
            deadlineMs: 30_000
        )
        let device = Self.device()
        let body = #"{"model":"fake","messages":[{"role":"user","content":"Why?"}],"stream":true}"#
        let before = try await Self.costUsed()
        let whole = try await harness.stream("/v1/chat", device: device, body: body)
        #expect(whole.head.status == 200, "\(String(decoding: whole.text, as: UTF8.self))")
        #expect(String(decoding: whole.text, as: UTF8.self).contains(#""usage":{"prompt_tokens""#))
        let served = try #require(try await upstream.streams().last)
        let tokens = try #require(served["usage"]?["input"]?.intValue) + (served["usage"]?["output"]?.intValue ?? 0)
        let settled = try await Self.costUsed()
        #expect(settled - before == tokens * 1_000_000, "settled \(settled - before) for \(tokens) tokens")

        // The same call cut after its first event: no usage ever arrives, the worst case stays reserved.
        let cutBody = #"{"model":"fake","messages":[{"role":"user","content":"Why?"}],"stream":true,"cutAfter":1}"#
        let cut = try await harness.stream("/v1/chat", device: device, body: cutBody)
        #expect(cut.head.status == 200)
        let kept = try await Self.costUsed()
        #expect(kept - settled > tokens * 1_000_000, "a cut stream kept \(kept - settled)")
        #expect((kept - settled) % 1_000_000 == 0)

        // Each stream's settle writes its own line after the decision line: the settled cost and tokens with the
        // money metrics by route and model (the dashboard's spend widgets); the cut one settles nothing.
        let logs = try await harness.get("/logs").arrayValue ?? []
        let lines = logs.compactMap { $0["line"]?.stringValue }.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        let settles = lines.filter { $0["event"] == .string("stream_settled") }
        #expect(settles.count == 1)
        let read = try #require(settles.first { $0["usage"] == .string("read") })
        #expect(read["costMicros"] == .int(tokens * 1_000_000) && read["model"] == .string("fake"))
        let spend = (read["_aws"]?["CloudWatchMetrics"]?.arrayValue ?? []).first {
            $0["Dimensions"] == .array([.array([.string("environment"), .string("route"), .string("model")])])
        }
        #expect((spend?["Metrics"]?.arrayValue ?? []).contains { $0["Name"] == .string("costMicros") })
    }

    /// Gemini streams from `…:streamGenerateContent?alt=sse` (the query is part of the route's `upstreamPath`);
    /// the settle reads the `usageMetadata` of the last chunk.
    @Test func aStreamedGeminiCallSettlesToTheLastChunksUsageMetadata() async throws {
        let upstream = try await FakeUpstreamProcess()
        _ = BootstrapTests.tableReady
        let route =
            #"[{"method":"POST","path":"/v1/ask","feature":"gemini_stream","mode":"monitor","dialect":"gemini-generate","#
            + #""upstreamPath":"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse","#
            + #""models":["gemini-2.5-flash"],"maxOutputTokens":50,"stream":true,"allowFields":["events","intervalMs"],"#
            + #""prices":{"gemini-2.5-flash":{"inputPerMTok":1000000,"outputPerMTok":1000000}},"#
            + #""allowance":{"firstDay":1000,"laterDays":1000}}]"#
        let harness = try await LocalHarness(
            environment: [
                "ATTESTGATE_ENV": "development", "TABLE_NAME": BootstrapTests.table, "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": BootstrapTests.dynamoDBEndpoint ?? "", "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "GATE_MODE": "monitor", "UPSTREAM_URL": upstream.url,
                "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "info", "ROUTES": route,
                "AI_DAILY_COST_CEILING_USD": "1000000",
            ],
            deadlineMs: 30_000
        )
        let body =
            #"{"contents":[{"role":"user","parts":[{"text":"Why is the sky blue?"}]}],"events":6,"intervalMs":5}"#
        let before = try await Self.costUsed()
        let received = try await harness.stream("/v1/ask", device: Self.device(), body: body)
        #expect(received.head.status == 200, "\(String(decoding: received.text, as: UTF8.self))")
        #expect(received.head.header("content-type") == "text/event-stream")
        #expect(received.failure == nil)
        let served = try #require(try await upstream.streams().last)
        #expect(served["path"]?.stringValue == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        #expect(served["dialect"]?.stringValue == "gemini")
        #expect(served["outcome"]?.stringValue == "complete")
        #expect(received.bytes == served["bytes"]?.intValue.map { Int($0) })
        #expect(String(decoding: received.text, as: UTF8.self).contains(#""usageMetadata":{"promptTokenCount""#))
        let tokens = try #require(served["usage"]?["input"]?.intValue) + (served["usage"]?["output"]?.intValue ?? 0)
        let settled = try await Self.costUsed()
        #expect(settled - before == tokens * 1_000_000, "settled \(settled - before) for \(tokens) tokens")
    }
}
