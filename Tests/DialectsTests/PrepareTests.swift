import AttestCore
import Testing

@testable import Dialects

@Suite struct PrepareTests {
    static let capped = DialectPolicy(maxOutputTokens: 1024)

    /// Each dialect's documented request, with the path Gemini needs.
    static let samples: [(Dialect, String, String, model: String)] = [
        (.openAIChat, ProviderSamples.chatRequest, "/v1/chat/completions", "gpt-4.1"),
        (.openAIResponses, ProviderSamples.responsesRequest, "/v1/responses", "gpt-4.1"),
        (.anthropicMessages, ProviderSamples.anthropicRequest, "/v1/messages", "claude-sonnet-4-5"),
        (.geminiGenerate, ProviderSamples.geminiRequest, ProviderSamples.geminiPath, "gemini-2.5-flash"),
    ]

    static func prepare(
        _ dialect: Dialect,
        _ body: String,
        policy: DialectPolicy = capped,
        path: String = ProviderSamples.geminiPath
    ) -> Result<PreparedRequest, DialectRefusal> {
        dialect.prepare(body: Array(body.utf8), policy: policy, upstreamPath: path)
    }

    static func forwarded(_ result: Result<PreparedRequest, DialectRefusal>) throws -> JSONValue {
        try JSONValue.parse(result.get().body)
    }

    @Test(arguments: samples)
    func aRequestForAnotherModelIsRefused(_ dialect: Dialect, _ body: String, _ path: String, model: String) throws {
        let other = DialectPolicy(models: ["some-other-model"], maxOutputTokens: 1024)
        let refused = Self.prepare(dialect, body, policy: other, path: path)
        #expect(throws: DialectRefusal(.modelNotAllowed)) { try refused.get() }

        let allowed = DialectPolicy(models: [model, "some-other-model"], maxOutputTokens: 1024)
        let prepared = try Self.prepare(dialect, body, policy: allowed, path: path).get()
        #expect(prepared.model == model)
        #expect(prepared.streams == false)
        #expect(prepared.maxOutputTokens == 1024)
    }

    @Test(arguments: samples)
    func documentedFieldsPassThroughWithOnlyTheDocumentedRewrites(
        _ dialect: Dialect,
        _ body: String,
        _ path: String,
        model: String
    ) throws {
        let original = try JSONValue.parse(Array(body.utf8)).objectValue!
        let forwarded = try Self.forwarded(Self.prepare(dialect, body, path: path)).objectValue!
        let rewritten: Set<String> = [
            "max_tokens", "max_completion_tokens", "max_output_tokens", "generationConfig", "service_tier",
        ]
        // OpenAI's project default tier may be a premium one: the gate names the standard tier.
        if dialect == .openAIChat || dialect == .openAIResponses {
            #expect(forwarded["service_tier"] == .string("default"))
        }
        for (key, value) in original where !rewritten.contains(key) {
            #expect(forwarded[key] == value, "\(key)")
        }
        #expect(Set(forwarded.keys).subtracting(original.keys).isSubset(of: rewritten))
    }

    @Test func aChatRequestAskingTooManyTokensIsCapped() throws {
        func forwarded(_ extra: String) throws -> JSONValue {
            try Self.forwarded(Self.prepare(.openAIChat, #"{"model":"gpt-4.1","messages":[]"# + extra + "}"))
        }
        // The field present is lowered; no other is added.
        var body = try forwarded(#","max_completion_tokens":100000"#)
        #expect(body["max_completion_tokens"] == .int(1024))
        #expect(body["max_tokens"] == nil)
        body = try forwarded(#","max_tokens":100000"#)
        #expect(body["max_tokens"] == .int(1024))
        #expect(body["max_completion_tokens"] == nil)
        // Both present: both lowered; a lower request stays as asked.
        body = try forwarded(#","max_tokens":100000,"max_completion_tokens":200"#)
        #expect(body["max_tokens"] == .int(1024))
        #expect(body["max_completion_tokens"] == .int(200))
        // None (or null): the modern field is set.
        body = try forwarded("")
        #expect(body["max_completion_tokens"] == .int(1024))
        body = try forwarded(#","max_tokens":null"#)
        #expect(body["max_completion_tokens"] == .int(1024))
        #expect(body["max_tokens"] == nil)
        let lower = try Self.prepare(.openAIChat, #"{"model":"m","max_completion_tokens":300}"#).get()
        #expect(lower.maxOutputTokens == 300)
    }

    @Test func theOtherDialectsCapTheirOutputField() throws {
        var body = try Self.forwarded(Self.prepare(.openAIResponses, #"{"model":"m","max_output_tokens":100000}"#))
        #expect(body["max_output_tokens"] == .int(1024))
        body = try Self.forwarded(Self.prepare(.openAIResponses, #"{"model":"m","input":"hi"}"#))
        #expect(body["max_output_tokens"] == .int(1024))

        body = try Self.forwarded(Self.prepare(.anthropicMessages, #"{"model":"m","max_tokens":100000}"#))
        #expect(body["max_tokens"] == .int(1024))
        body = try Self.forwarded(Self.prepare(.anthropicMessages, #"{"model":"m"}"#))
        #expect(body["max_tokens"] == .int(1024))

        let gemini = #"{"contents":[],"generationConfig":{"maxOutputTokens":100000,"temperature":0.5}}"#
        body = try Self.forwarded(Self.prepare(.geminiGenerate, gemini))
        #expect(body["generationConfig"] == ["maxOutputTokens": 1024, "temperature": .double(0.5)])
        body = try Self.forwarded(Self.prepare(.geminiGenerate, #"{"contents":[]}"#))
        #expect(body["generationConfig"] == ["maxOutputTokens": 1024])
        // Google also reads proto field names: the snake-case spelling is read and rewritten.
        let snake = #"{"contents":[],"generation_config":{"max_output_tokens":100000,"top_k":3}}"#
        body = try Self.forwarded(Self.prepare(.geminiGenerate, snake))
        #expect(body["generation_config"] == nil)
        #expect(body["generationConfig"] == ["maxOutputTokens": 1024, "top_k": 3])
    }

    @Test func anAnthropicThinkingBudgetIsLoweredUnderTheCap() throws {
        let body = #"{"model":"m","max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":10000}}"#
        let policy = DialectPolicy(maxOutputTokens: 4096)
        let forwarded = try Self.forwarded(Self.prepare(.anthropicMessages, body, policy: policy))
        #expect(forwarded["max_tokens"] == 4096)
        #expect(forwarded["thinking"] == ["type": "enabled", "budget_tokens": 4095])
        // A budget that fits, or a cap too small for any budget, is left as asked.
        let fits = try Self.forwarded(
            Self.prepare(.anthropicMessages, body, policy: DialectPolicy(maxOutputTokens: 20000))
        )
        #expect(fits["thinking"]?["budget_tokens"] == 10000)
        let small = try Self.forwarded(
            Self.prepare(.anthropicMessages, body, policy: DialectPolicy(maxOutputTokens: 1024))
        )
        #expect(small["thinking"]?["budget_tokens"] == 10000)
        #expect(throws: DialectRefusal(.fieldInvalid)) {
            try Self.prepare(.anthropicMessages, #"{"model":"m","thinking":{"budget_tokens":"5000"}}"#).get()
        }
    }

    @Test(arguments: [
        (Dialect.openAIChat, #"{"model":"gpt-4.1","messages":[],"n":2}"#),
        (.geminiGenerate, #"{"contents":[],"generationConfig":{"candidateCount":2}}"#),
        (.geminiGenerate, #"{"contents":[],"generation_config":{"candidate_count":4}}"#),
    ])
    func severalChoicesAreRefused(_ dialect: Dialect, _ body: String) {
        #expect(throws: DialectRefusal(.severalChoices)) { try Self.prepare(dialect, body).get() }
    }

    @Test func oneChoicePasses() throws {
        let chat = try Self.forwarded(Self.prepare(.openAIChat, #"{"model":"m","n":1}"#))
        #expect(chat["n"] == 1)
        let gemini = try Self.forwarded(Self.prepare(.geminiGenerate, #"{"generationConfig":{"candidateCount":1}}"#))
        #expect(gemini["generationConfig"]?["candidateCount"] == 1)
    }

    @Test(arguments: Dialect.allCases.filter(\.isKnown))
    func malformedBodiesAreRefused(_ dialect: Dialect) {
        let cases: [(String, DialectRefusal.Reason)] = [
            ("", .malformedBody),
            (#"{"model":"m""#, .malformedBody),
            (#"{"model":"m"} trailing"#, .malformedBody),
            (#"{"model":'m'}"#, .malformedBody),
            ("\u{FEFF}{}x", .malformedBody),
            (#"["model","m"]"#, .bodyNotObject),
            (#""model""#, .bodyNotObject),
            ("42", .bodyNotObject),
            ("null", .bodyNotObject),
            (#"{"model":"m","model":"other"}"#, .duplicateKey),
            (#"{"model":"m","mod\u0065l":"other"}"#, .duplicateKey),
            (#"{"model":"m","messages":[{"role":"user","role":"system"}]}"#, .duplicateKey),
        ]
        for (body, reason) in cases {
            #expect(throws: DialectRefusal(reason), "\(body)") { try Self.prepare(dialect, body).get() }
        }
        var bytes = Array(#"{"model":"m","x":""#.utf8)
        bytes += [0xC3, 0x28] + Array(#""}"#.utf8)  // invalid UTF-8
        #expect(throws: DialectRefusal(.malformedBody)) {
            try dialect.prepare(body: bytes, policy: Self.capped, upstreamPath: ProviderSamples.geminiPath).get()
        }
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: DialectRefusal(.malformedBody)) { try Self.prepare(dialect, #"{"a":"# + deep + "}").get() }
    }

    @Test(arguments: [
        (Dialect.openAIChat, #"{"model":5}"#, DialectRefusal.Reason.fieldInvalid),
        (.openAIChat, #"{"messages":[]}"#, .modelMissing),
        (.openAIChat, #"{"model":""}"#, .modelMissing),
        (.openAIChat, #"{"model":"m","max_tokens":"100"}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","max_completion_tokens":0}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","max_completion_tokens":-5}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","max_completion_tokens":10.5}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","n":"2"}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","n":0}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","stream":"true"}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","stream":true,"stream_options":"yes"}"#, .fieldInvalid),
        (.openAIChat, #"{"model":"m","service_tier":"priority"}"#, .premiumSwitch),
        (.openAIResponses, #"{"model":"m","service_tier":"priority"}"#, .premiumSwitch),
        (.openAIResponses, #"{"model":["m"]}"#, .fieldInvalid),
        (.openAIResponses, #"{"model":"m","previous_response_id":"resp_123"}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","conversation":"conv_123"}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","prompt":{"id":"pmpt_123"}}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}"#, .storedContext),
        (.anthropicMessages, #"{"max_tokens":100}"#, .modelMissing),
        (.anthropicMessages, #"{"model":"m","max_tokens":true}"#, .fieldInvalid),
        (.geminiGenerate, #"{"generationConfig":[]}"#, .fieldInvalid),
        (.geminiGenerate, #"{"generationConfig":{"maxOutputTokens":"100000"}}"#, .fieldInvalid),
        (.geminiGenerate, #"{"generationConfig":{},"generation_config":{}}"#, .duplicateKey),
        (.geminiGenerate, #"{"generationConfig":{"maxOutputTokens":5,"max_output_tokens":9}}"#, .duplicateKey),
        (.geminiGenerate, #"{"cachedContent":"cachedContents/abc"}"#, .storedContext),
        (.openAIChat, #"{"model":"m","web_search_options":{}}"#, .hostedTool),
        (
            .openAIChat, #"{"model":"m","tools":[{"type":"function","function":{"name":"f"}},{"type":"x"}]}"#,
            .hostedTool
        ),
        (.openAIChat, #"{"model":"m","tools":{"type":"function"}}"#, .fieldInvalid),
        (.openAIResponses, #"{"model":"m","tools":[{"type":"web_search"}]}"#, .hostedTool),
        (.openAIResponses, #"{"model":"m","tools":[{"type":"mcp","server_url":"https://x"}]}"#, .hostedTool),
        (.openAIResponses, #"{"model":"m","tools":["web_search"]}"#, .fieldInvalid),
        (
            .anthropicMessages, #"{"model":"m","tools":[{"type":"web_search_20250305","name":"web_search"}]}"#,
            .hostedTool
        ),
        (.anthropicMessages, #"{"model":"m","mcp_servers":[{"type":"url","url":"https://x"}]}"#, .hostedTool),
        (.geminiGenerate, #"{"tools":[{"googleSearch":{}}]}"#, .hostedTool),
        (.geminiGenerate, #"{"tools":[{"functionDeclarations":[]},{"code_execution":{}}]}"#, .hostedTool),
        // Input items OpenAI fills in from what it stored: a reference without its type, a reasoning item
        // without its sealed content.
        (.openAIResponses, #"{"model":"m","input":[{"id":"msg_abc"}]}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","input":[{"type":null,"id":"rs_def"}]}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","input":[{"role":null,"id":"msg_abc"}]}"#, .storedContext),
        (.openAIResponses, #"{"model":"m","input":[{"type":"reasoning","id":"rs_1","summary":[]}]}"#, .storedContext),
        (
            .openAIResponses, #"{"model":"m","input":[{"type":"reasoning","id":"rs_1","encrypted_content":""}]}"#,
            .storedContext
        ),
        // Prices above the list price the route's `prices` hold.
        (.anthropicMessages, #"{"model":"m","inference_geo":"us"}"#, .fieldNotAllowed),
        (.anthropicMessages, #"{"model":"m","inference_geo":5}"#, .fieldInvalid),
        (.geminiGenerate, #"{"service_tier":"priority"}"#, .fieldNotAllowed),
        (.geminiGenerate, #"{"serviceTier":"SERVICE_TIER_PRIORITY"}"#, .fieldNotAllowed),
        (.geminiGenerate, #"{"serviceTier":2}"#, .fieldNotAllowed),
        (.geminiGenerate, #"{"generationConfig":{"serviceTier":"priority"}}"#, .fieldNotAllowed),
        // A body model other than the path's.
        (.geminiGenerate, #"{"model":"gemini-2.5-pro"}"#, .fieldNotAllowed),
        (.geminiGenerate, #"{"model":"models/gemini-2.5-pro"}"#, .fieldNotAllowed),
    ])
    func fieldsOfTheWrongShapeAreRefused(_ dialect: Dialect, _ body: String, _ reason: DialectRefusal.Reason) {
        #expect(throws: DialectRefusal(reason)) { try Self.prepare(dialect, body).get() }
    }

    @Test func toolsTheClientRunsPass() throws {
        let function = #"{"type":"function","function":{"name":"lookup","parameters":{"type":"object"}}}"#
        _ = try Self.prepare(.openAIChat, #"{"model":"m","tools":["# + function + "]}").get()
        _ = try Self.prepare(.openAIResponses, #"{"model":"m","tools":[{"type":"function","name":"f"}]}"#).get()
        let custom = #"{"model":"m","tools":[{"name":"get_weather","input_schema":{"type":"object"}}]}"#
        let anthropic = try Self.prepare(.anthropicMessages, custom).get()
        // Anthropic's tool-use system prompt is input the body does not carry.
        #expect(anthropic.inputTokenBound() == anthropic.body.count + AnthropicMessages.toolUseOverhead)
        let declared = #"{"tools":[{"functionDeclarations":[{"name":"f"}]}]}"#
        _ = try Self.prepare(.geminiGenerate, declared).get()
    }

    @Test func inputsTheProviderDoesNotFillInPass() throws {
        let message =
            #"{"model":"m","input":[{"role":"user","content":"hi"},{"type":"message","role":"user","content":"x"}]}"#
        _ = try Self.prepare(.openAIResponses, message).get()
        let sealed =
            #"{"model":"m","input":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA"}]}"#
        _ = try Self.prepare(.openAIResponses, sealed).get()
        _ = try Self.prepare(.anthropicMessages, #"{"model":"m","inference_geo":"global"}"#).get()
        for tier in ["standard", "flex", "SERVICE_TIER_FLEX"] {
            _ = try Self.prepare(.geminiGenerate, #"{"serviceTier":"\#(tier)"}"#).get()
        }
        // The path's own model may be repeated in the body.
        _ = try Self.prepare(.geminiGenerate, #"{"model":"models/gemini-2.5-flash"}"#).get()
        _ = try Self.prepare(.geminiGenerate, #"{"model":"gemini-2.5-flash"}"#).get()
    }

    /// Media, inline or by reference, in each dialect's shapes (nested too: an Anthropic tool result may
    /// carry an image); a route must declare `maxInputTokens` to let them through.
    static let media: [(Dialect, String)] = [
        (
            .openAIChat,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/a.png"}}]}]}"#
        ),
        (
            .openAIChat,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{"data":"AAAA","format":"wav"}}]}]}"#
        ),
        (
            .openAIChat,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}"#
        ),
        (
            .openAIResponses,
            #"{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/a.png"}]}]}"#
        ),
        (
            .openAIResponses,
            #"{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_url":"https://x/scan.pdf"}]}]}"#
        ),
        (
            .openAIResponses,
            #"{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"file-1"}]}]}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/a.png"}}]}]}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://x/a.pdf"}}]}]}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}]}]}]}"#
        ),
        (
            .geminiGenerate,
            #"{"contents":[{"parts":[{"fileData":{"fileUri":"https://www.youtube.com/watch?v=x","mimeType":"video/mp4"}}]}]}"#
        ),
        (
            .geminiGenerate,
            #"{"contents":[{"parts":[{"text":"hi"},{"inline_data":{"mime_type":"image/png","data":"AA"}}]}]}"#
        ),
        (
            .geminiGenerate,
            #"{"systemInstruction":{"parts":[{"inlineData":{"mimeType":"application/pdf","data":"AA"}}]}}"#
        ),
    ]

    @Test(arguments: media)
    func mediaNeedsADeclaredInputBound(_ dialect: Dialect, _ body: String) throws {
        #expect(throws: DialectRefusal(.mediaInput)) { try Self.prepare(dialect, body).get() }
        let declared = DialectPolicy(maxOutputTokens: 1024, acceptsMedia: true)
        _ = try Self.prepare(dialect, body, policy: declared).get()
    }

    @Test func textAndSchemasThatNameMediaAreNotMedia() throws {
        // A tool's parameter schema may have properties called `file` or `image`; their types are JSON
        // Schema's. Text parts pass.
        let schema = #"{"type":"object","properties":{"file":{"type":"string"},"image":{"type":"string"}}}"#
        let chat =
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"image_url"}]}],"#
            + #""tools":[{"type":"function","function":{"name":"f","parameters":"# + schema + "}}]}"
        _ = try Self.prepare(.openAIChat, chat).get()
        let anthropic =
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"document"}]}],"#
            + #""tools":[{"name":"f","input_schema":"# + schema + "}]}"
        _ = try Self.prepare(.anthropicMessages, anthropic).get()
        let gemini =
            #"{"contents":[{"parts":[{"text":"fileData"}]}],"tools":[{"functionDeclarations":"#
            + #"[{"name":"f","parameters":{"type":"object","properties":{"fileData":{"type":"string"}}}}]}]}"#
        _ = try Self.prepare(.geminiGenerate, gemini).get()
    }

    @Test func aStreamedChatRequestAsksForTheUsageChunk() throws {
        let plain = try Self.prepare(.openAIChat, #"{"model":"m","stream":true}"#).get()
        #expect(plain.streams)
        #expect(try JSONValue.parse(plain.body)["stream_options"] == ["include_usage": true])
        let refused =
            #"{"model":"m","stream":true,"stream_options":{"include_usage":false,"include_obfuscation":true}}"#
        let body = try Self.forwarded(Self.prepare(.openAIChat, refused))
        #expect(body["stream_options"] == ["include_usage": true, "include_obfuscation": true])
        let buffered = try Self.forwarded(Self.prepare(.openAIChat, #"{"model":"m","stream":false}"#))
        #expect(buffered["stream_options"] == nil)
        #expect(try Self.prepare(.openAIResponses, #"{"model":"m","stream":true}"#).get().streams)
        #expect(try Self.prepare(.anthropicMessages, #"{"model":"m","stream":true}"#).get().streams)
    }

    @Test func geminiReadsTheModelAndStreamingFromThePath() throws {
        let streamed = try Self.prepare(.geminiGenerate, "{}", path: ProviderSamples.geminiStreamPath).get()
        #expect(streamed.streams)
        #expect(streamed.model == "gemini-2.5-flash")
        #expect(
            GeminiMethod(upstreamPath: "/v1/models/gemini-2.0-flash-001:generateContent")?.model
                == "gemini-2.0-flash-001"
        )
        for path in [
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent", "/v1beta/models/:generateContent",
            "/v1beta/models/gemini-2.5-flash:countTokens", "/v1beta/tunedModels/x:generateContent",
            "/v1beta/models/gemini-2.5-flash", "/v1beta/models/a/b:generateContent", "/v1/chat/completions",
            "/v1beta/models/gemini-2.5-flash:generateContent?alt=sse", "",
        ] {
            #expect(throws: DialectRefusal(.pathInvalid), "\(path)") {
                try Self.prepare(.geminiGenerate, "{}", path: path).get()
            }
        }
    }

    @Test func opaqueForwardsTheBytesAsTheyCame() throws {
        let body: [UInt8] = Array(#"{"model":"x","model":"y","n":9} not json"#.utf8)
        let prepared = try Dialect.opaque.prepare(body: body, policy: Self.capped).get()
        #expect(prepared.body == body)
        #expect(prepared.model == nil)
        #expect(prepared.maxOutputTokens == nil)
    }

    @Test func theInputBoundIsTheForwardedByteCount() throws {
        let prepared = try Self.prepare(.openAIChat, ProviderSamples.chatRequest).get()
        #expect(prepared.inputTokenBound() == prepared.body.count)
        // A declaration above the bytes raises the bound (media); one below them never lowers it.
        #expect(prepared.inputTokenBound(maxInputTokens: 5000) == 5000)
        #expect(prepared.inputTokenBound(maxInputTokens: 10) == prepared.body.count)
        let tools = #"{"model":"m","tools":[{"name":"f","input_schema":{"type":"object"}}]}"#
        let withTools = try Self.prepare(.anthropicMessages, tools).get()
        #expect(
            withTools.inputTokenBound(maxInputTokens: 10) == withTools.body.count + AnthropicMessages.toolUseOverhead
        )
        #expect(withTools.inputTokenBound(maxInputTokens: 50_000) == 50_000 + AnthropicMessages.toolUseOverhead)
        // An Anthropic request that writes to the prompt cache may cost twice the base input price.
        let cached = #"{"model":"m","system":[{"type":"text","text":"long","cache_control":{"type":"ephemeral"}}]}"#
        let weighted = try Self.prepare(.anthropicMessages, cached).get()
        #expect(weighted.inputTokenWeight == 2)
        #expect(weighted.inputTokenBound() == 2 * weighted.body.count)
        #expect(try Self.prepare(.anthropicMessages, ProviderSamples.anthropicRequest).get().inputTokenWeight == 1)
        #expect(
            PreparedRequest(body: [], model: nil, streams: false, maxOutputTokens: nil, inputTokenWeight: 2)
                .inputTokenBound(maxInputTokens: .max) == .max
        )
    }

    @Test(arguments: Dialect.allCases)
    func dialectsParseFromTheirRouteNames(_ dialect: Dialect) {
        #expect(Dialect(rawValue: dialect.rawValue) == dialect)
        #expect(Dialect(rawValue: "OpenAI-Chat") == nil)
    }
}
