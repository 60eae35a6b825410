import AppTestSupport
import AttestCore
import DynamoDB
import FoundationEssentials
import Glibc
import Synchronization
import TestSupport
import Testing
import WireContract

/// One provider API as a route sees it: where it is called, what a client sends, what the provider
/// answers (real-shaped, with usage 10 in / 20 out) and where the forwarded output cap is.
struct ProviderCase: Sendable, CustomStringConvertible {
    let dialect: String
    let upstreamPath: String
    let model: String
    /// A request naming `model` and asking for 100,000 output tokens.
    let greedy: String
    /// A request the dialect must refuse (another model, or several choices for Gemini).
    let refused: String
    /// A request with media by reference (an image or a PDF by URL, a video by URI): a few hundred bytes
    /// that a provider may bill as a context window.
    let media: String
    let answer: String
    /// Reads the output cap from the forwarded body.
    let cap: @Sendable (JSONValue) -> Int64?

    var description: String { dialect }

    static let all: [ProviderCase] = [
        ProviderCase(
            dialect: "openai-chat",
            upstreamPath: "/v1/chat/completions",
            model: "gpt-4.1",
            greedy: #"{"model":"gpt-4.1","messages":[{"role":"user","content":"Hi"}],"max_completion_tokens":100000}"#,
            refused: #"{"model":"gpt-4.5-preview","messages":[{"role":"user","content":"Hi"}]}"#,
            media: #"""
                {"model":"gpt-4.1","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},
                {"type":"image_url","image_url":{"url":"https://example.com/photo.png"}}]}]}
                """#,
            answer: #"""
                {"id":"chatcmpl-1","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14",
                "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],
                "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}
                """#,
            cap: { $0["max_completion_tokens"]?.intValue }
        ),
        ProviderCase(
            dialect: "openai-responses",
            upstreamPath: "/v1/responses",
            model: "gpt-4.1",
            greedy: #"{"model":"gpt-4.1","input":"Hi","store":false,"max_output_tokens":100000}"#,
            refused: #"{"model":"o3-pro","input":"Hi","store":false}"#,
            media: #"""
                {"model":"gpt-4.1","store":false,"input":[{"role":"user","content":[{"type":"input_text",
                "text":"Summarise"},{"type":"input_file","file_url":"https://example.com/900-pages.pdf"}]}]}
                """#,
            answer: #"""
                {"id":"resp_1","object":"response","status":"completed","model":"gpt-4.1-2025-04-14","output":[],
                "usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":20,
                "output_tokens_details":{"reasoning_tokens":0},"total_tokens":30}}
                """#,
            cap: { $0["max_output_tokens"]?.intValue }
        ),
        ProviderCase(
            dialect: "anthropic-messages",
            upstreamPath: "/v1/messages",
            model: "claude-sonnet-4-5",
            greedy: #"{"model":"claude-sonnet-4-5","max_tokens":100000,"messages":[{"role":"user","content":"Hi"}]}"#,
            refused: #"{"model":"claude-opus-4-1","max_tokens":10,"messages":[{"role":"user","content":"Hi"}]}"#,
            media: #"""
                {"model":"claude-sonnet-4-5","max_tokens":100,"messages":[{"role":"user","content":[
                {"type":"document","source":{"type":"url","url":"https://example.com/900-pages.pdf"}},
                {"type":"text","text":"Summarise"}]}]}
                """#,
            answer: #"""
                {"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",
                "content":[{"type":"text","text":"Hi!"}],"stop_reason":"end_turn","stop_sequence":null,
                "usage":{"input_tokens":10,"output_tokens":20,"cache_creation_input_tokens":0,
                "cache_read_input_tokens":0}}
                """#,
            cap: { $0["max_tokens"]?.intValue }
        ),
        ProviderCase(
            dialect: "gemini-generate",
            upstreamPath: "/v1beta/models/gemini-2.5-flash:generateContent",
            model: "gemini-2.5-flash",
            greedy: #"{"contents":[{"parts":[{"text":"Hi"}]}],"generationConfig":{"maxOutputTokens":100000}}"#,
            refused: #"{"contents":[{"parts":[{"text":"Hi"}]}],"generationConfig":{"candidateCount":2}}"#,
            media: #"""
                {"contents":[{"parts":[{"text":"Summarise"},{"fileData":{"mimeType":"video/mp4",
                "fileUri":"https://www.youtube.com/watch?v=9hE5-98ZeCg"}}]}]}
                """#,
            answer: #"""
                {"candidates":[{"content":{"parts":[{"text":"AI learns patterns."}],"role":"model"},
                "finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,
                "candidatesTokenCount":20,"totalTokenCount":30},"modelVersion":"gemini-2.5-flash"}
                """#,
            cap: { $0["generationConfig"]?["maxOutputTokens"]?.intValue }
        ),
    ]
}

/// A fake provider that can hold every call until told to answer, and keeps what it received.
final class PricedUpstream: Sendable {
    final class State: Sendable {
        let holding = Atomic<Bool>(false)
        let waiting = Atomic<Int>(0)
        let bodies = Mutex<[[UInt8]]>([])
    }

    let state = State()
    let server: LoopbackHTTPServer
    var waiting: Int { state.waiting.load(ordering: .sequentiallyConsistent) }
    var bodies: [[UInt8]] { state.bodies.withLock { $0 } }
    func hold(_ holding: Bool) { state.holding.store(holding, ordering: .sequentiallyConsistent) }

    init(answer: String) throws {
        let state = self.state
        server = try LoopbackHTTPServer { request in
            state.bodies.withLock { $0.append(request.body) }
            state.waiting.add(1, ordering: .sequentiallyConsistent)
            var waited = 0
            while state.holding.load(ordering: .sequentiallyConsistent) && waited < 200 {
                usleep(50_000)
                waited += 1
            }
            return .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array(answer.utf8))
        }
    }
}

/// The dialects and the money ceiling through the real router, against moto (docs/gate.md, "The money ceiling").
@Suite(.enabled(if: spendFlowMoto != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct MoneyFlowTests {
    /// $2 per million input tokens, $8 per million output tokens: a call of 10 in / 20 out costs 180 µ$.
    static let settledMicros: Int64 = 10 * 2 + 20 * 8

    static func route(_ provider: ProviderCase, maxOutputTokens: Int = 256, maxInputTokens: Int? = nil) -> JSONValue {
        var route: [String: JSONValue] = [
            "method": "POST", "path": "/v1/ai", "feature": "ai", "mode": "monitor",
            "upstreamPath": .string(provider.upstreamPath), "dialect": .string(provider.dialect),
            "models": .array([.string(provider.model)]), "maxOutputTokens": .int(Int64(maxOutputTokens)),
            "prices": .object([provider.model: .object(["inputPerMTok": 2, "outputPerMTok": 8])]),
            "allowance": .object(["firstDay": 1000, "laterDays": 1000]),
        ]
        if let maxInputTokens { route["maxInputTokens"] = .int(Int64(maxInputTokens)) }
        return .object(route)
    }

    static func app(
        _ provider: ProviderCase,
        upstream: PricedUpstream,
        budgetUSD: String,
        maxOutputTokens: Int = 256,
        maxInputTokens: Int? = nil,
        resending: Set<String> = []
    ) async throws -> GateTestApp {
        try await GateTestApp(
            routes: GateTestApp.routes([
                route(provider, maxOutputTokens: maxOutputTokens, maxInputTokens: maxInputTokens)
            ]),
            settings: ["AI_DAILY_COST_CEILING_USD": budgetUSD, "UPSTREAM_URL": upstream.server.baseURL],
            resending: resending
        )
    }

    static func total(_ app: GateTestApp) async throws -> (calls: Int64, cost: Int64) {
        let row = try await app.row("AI_BUDGET#\(SpendFlowTests.today(app))", "TOTAL")
        return (row?["calls"]?.intValue ?? 0, row?["cost"]?.intValue ?? 0)
    }

    static func call(_ client: GateTestClient, _ body: String) async throws -> GateTestResponse {
        try await client.execute(
            "/v1/ai",
            headers: [WireHeader.deviceID.name: randomDeviceID()],
            body: Array(body.utf8)
        )
    }

    /// Token classes end to end: a usage with cache reads, 5-minute and 1-hour writes settles each at its price
    /// (Anthropic's rule: 1.25× and 2× input); one with a class nobody prices (audio output) keeps the whole
    /// reservation and names the class on the decision line.
    @Test func eachTokenClassSettlesAtItsPriceAndAnUnpricedOneKeepsTheReservation() async throws {
        let anthropic = ProviderCase.all[2]
        let cached = #"""
            {"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text",
            "text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_creation_input_tokens":300,
            "cache_read_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":100,
            "ephemeral_1h_input_tokens":200},"output_tokens":20}}
            """#
        let upstream = try PricedUpstream(answer: cached)
        let app = try await Self.app(anthropic, upstream: upstream, budgetUSD: "100")
        let first = try await app.test { client in try await Self.call(client, anthropic.greedy).status }
        #expect(first == 200)
        // 10×2 + 1000×2 + 100×2.5 + 200×4 + 20×8 µ$ (prices per million: input $2, output $8).
        #expect(try await Self.total(app).cost == 10 * 2 + 1000 * 2 + 100 * 5 / 2 + 200 * 4 + 20 * 8)
        #expect(app.decisions.last?["usageUnpriced"] == nil)

        let chat = ProviderCase.all[0]
        let audio = #"""
            {"id":"c","object":"chat.completion","model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":10,
            "completion_tokens":20,"total_tokens":30,"completion_tokens_details":{"audio_tokens":15}}}
            """#
        let audioUpstream = try PricedUpstream(answer: audio)
        let audioApp = try await Self.app(chat, upstream: audioUpstream, budgetUSD: "100")
        let second = try await audioApp.test { client in try await Self.call(client, chat.greedy).status }
        #expect(second == 200)
        let line = try #require(audioApp.decisions.last)
        #expect(line["usageUnpriced"] == "audio_output" && line["costMicros"] == nil)
        #expect(try await Self.total(audioApp).cost == line["costReservedMicros"]?.intValue)
    }

    @Test(arguments: ProviderCase.all)
    func aKnownDialectIsCappedRefusedAndSettledToTheReportedUsage(provider: ProviderCase) async throws {
        let upstream = try PricedUpstream(answer: provider.answer)
        let app = try await Self.app(provider, upstream: upstream, budgetUSD: "100")
        try await app.test { client in
            let refused = try await Self.call(client, provider.refused)
            #expect(refused.status == 400 && refused.error == "invalid_request")
            #expect(upstream.bodies.isEmpty)
            #expect(try await Self.total(app).calls == 0)

            let answered = try await Self.call(client, provider.greedy)
            #expect(answered.status == 200)
        }
        let forwarded = try #require(upstream.bodies.first)
        #expect(provider.cap(try JSONValue.parse(forwarded)) == 256)
        let line = try #require(app.decisions.last)
        #expect(line["usage"] == "read" && line["inputTokens"] == 10 && line["outputTokens"] == 20)
        #expect(line["costMicros"] == .int(Self.settledMicros))
        // Worst case: the forwarded body's bytes at $2 plus 256 output tokens at $8, rounded up.
        let worst = (Int64(forwarded.count) * 2_000_000 + 256 * 8_000_000 + 999_999) / 1_000_000
        #expect(line["costReservedMicros"] == .int(worst))
        let total = try await Self.total(app)
        #expect(total.calls == 1 && total.cost == Self.settledMicros)
    }

    /// Media is priced by pixels, pages or seconds, not bytes: without a declared `maxInputTokens` it is
    /// refused before anything is reserved or sent; with one, the reservation takes the declaration.
    @Test(arguments: ProviderCase.all)
    func mediaIsRefusedUnlessTheRouteDeclaresItsInputBound(provider: ProviderCase) async throws {
        let upstream = try PricedUpstream(answer: provider.answer)
        let undeclared = try await Self.app(provider, upstream: upstream, budgetUSD: "100")
        try await undeclared.test { client in
            let refused = try await Self.call(client, provider.media)
            #expect(refused.status == 400 && refused.error == "invalid_request")
        }
        #expect(upstream.bodies.isEmpty)
        let reserved = try await Self.total(undeclared)
        #expect(reserved.calls == 0)
        #expect(undeclared.decisions.last?["reason"] == "dialect.media_input")

        let declared = try await Self.app(provider, upstream: upstream, budgetUSD: "100", maxInputTokens: 50_000)
        try await declared.test { client in
            let answered = try await Self.call(client, provider.media)
            #expect(answered.status == 200)
        }
        let forwarded = try #require(upstream.bodies.first)
        #expect(upstream.bodies.count == 1)
        // The declared 50,000 input tokens at $2 (above the body's bytes) plus the output cap at $8.
        let cap = try #require(provider.cap(try JSONValue.parse(forwarded)))
        let line = try #require(declared.decisions.last)
        #expect(line["costReservedMicros"] == .int(50_000 * 2 + cap * 8))
    }

    /// Reads the reserved sum back while the calls run, and holds the admitted calls at the provider until
    /// every call is decided (held at the provider, or refused on the money ceiling): nothing has settled
    /// then, so the sum read at that moment is exactly the admitted worst cases.
    static func watch(_ app: GateTestApp, _ upstream: PricedUpstream, calls: Int) async throws -> (Int64, [Int64]) {
        var samples: [Int64] = []
        var rounds = 0
        while upstream.waiting + app.decisions.filter({ $0["ceiling"] == "cost" }).count < calls, rounds < 500 {
            samples.append(try await total(app).cost)
            try await Task.sleep(for: .milliseconds(20))
            rounds += 1
        }
        let held = try await total(app).cost
        upstream.hold(false)
        return (held, samples)
    }

    @Test func threeBudgetsOfParallelWorstCasesNeverReserveMoreThanTheBudget() async throws {
        let provider = ProviderCase.all[0]
        let upstream = try PricedUpstream(answer: provider.answer)
        // Worst case ≈ 100 bytes × 2 + 1000 × 8 ≈ 8,200 µ$; a budget of $0.05 holds six of them.
        let app = try await Self.app(provider, upstream: upstream, budgetUSD: "0.05", maxOutputTokens: 1000)
        let body = #"{"model":"gpt-4.1","messages":[{"role":"user","content":"Make three cards"}]}"#
        let budget: Int64 = 50_000
        upstream.hold(true)
        let calls = 18
        let (statuses, samples, held) = try await app.test { client -> ([Int], [Int64], Int64) in
            async let watched = Self.watch(app, upstream, calls: calls)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<calls { group.addTask { try await Self.call(client, body).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            let (held, samples) = try await watched
            return (statuses, samples, held)
        }
        let lines = app.decisions
        let reserved = lines.compactMap { $0["costReservedMicros"]?.intValue }
        guard let worst = reserved.first else {
            Issue.record("no call reserved a worst case")
            return
        }
        let admitted = statuses.filter { $0 == 200 }.count
        #expect(admitted == Int(budget / worst))
        #expect(statuses.filter { $0 == 503 }.count == calls - admitted)
        #expect(lines.filter { $0["ceiling"] == "cost" }.count == calls - admitted)
        // At the moment the last call was refused, the next worst case did not fit.
        #expect(held == Int64(admitted) * worst && budget - held < worst)
        #expect(!samples.isEmpty && (samples + [held]).allSatisfy { $0 <= budget })
        let total = try await Self.total(app)
        #expect(total.cost == Int64(admitted) * Self.settledMicros)
        #expect(total.calls == Int64(admitted))
    }

    @Test func resentWritesNeitherCountNorGiveBackTwice() async throws {
        let provider = ProviderCase.all[2]
        let upstream = try PricedUpstream(answer: provider.answer)
        let app = try await Self.app(
            provider,
            upstream: upstream,
            budgetUSD: "100",
            resending: ["UpdateItem", "TransactWriteItems", "PutItem"]
        )
        try await app.test { client in
            for _ in 0..<4 {
                let response = try await Self.call(client, provider.greedy)
                #expect(response.status == 200)
            }
        }
        #expect(app.transport.resent >= 8)
        let total = try await Self.total(app)
        #expect(total.calls == 4 && total.cost == 4 * Self.settledMicros)
    }

    @Test func aStreamedAnswerIsSettledFromItsEvents() async throws {
        let provider = ProviderCase.all[2]
        let events = """
            event: message_start
            data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],\
            "model":"claude-sonnet-4-5","usage":{"input_tokens":10,"cache_creation_input_tokens":0,\
            "cache_read_input_tokens":0,"output_tokens":1}}}

            event: content_block_delta
            data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

            event: message_delta
            data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":20}}

            event: message_stop
            data: {"type":"message_stop"}


            """
        let upstream = try PricedUpstream(answer: events)
        let app = try await Self.app(provider, upstream: upstream, budgetUSD: "100")
        let streamed =
            #"{"model":"claude-sonnet-4-5","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"Hi"}]}"#
        try await app.test { client in
            let response = try await Self.call(client, streamed)
            #expect(response.status == 200)
        }
        #expect(app.decisions.last?["usage"] == "read")
        #expect(try await Self.total(app).cost == Self.settledMicros)
    }
}
