import AttestCore
import Testing

@testable import Dialects

/// The closed world (docs/dialects.md): real-shaped requests from each provider's reference pass unchanged but
/// for the documented rewrites; every class of member the gate cannot bound or price is refused, with the slug
/// of its class, before anything is spent.
@Suite struct ClosedWorldTests {
    static let media = DialectPolicy(maxOutputTokens: 1024, acceptsMedia: true)

    static func prepare(
        _ dialect: Dialect,
        _ body: String,
        policy: DialectPolicy = media,
        path: String = "/v1beta/models/gemini-2.5-flash:generateContent"
    ) -> Result<PreparedRequest, DialectRefusal> {
        dialect.prepare(body: Array(body.utf8), policy: policy, upstreamPath: path)
    }

    /// Requests shaped as the references' own examples: text, tools and their results in the history,
    /// structured output, streaming, reasoning and thinking, an image where the route declares media.
    static let corpus: [(Dialect, String)] = [
        (
            .openAIChat,
            #"{"model":"gpt-4.1","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi","name":"u1"}],"temperature":0.2,"top_p":1,"stop":["\n\n"],"seed":7,"user":"u-1","store":false}"#
        ),
        (
            .openAIChat,
            #"{"model":"gpt-4.1","messages":[{"role":"user","content":"Weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},{"role":"tool","tool_call_id":"call_1","content":"18C"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Current weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}}],"tool_choice":"auto","parallel_tool_calls":false}"#
        ),
        (
            .openAIChat,
            #"{"model":"gpt-4.1","messages":[{"role":"developer","content":[{"type":"text","text":"Extract."}]},{"role":"user","content":"Ann is 31"}],"response_format":{"type":"json_schema","json_schema":{"name":"person","schema":{"type":"object","properties":{"age":{"type":"integer"}}},"strict":true}},"reasoning_effort":"low","verbosity":"low","logprobs":true,"top_logprobs":2,"logit_bias":{"50256":-100},"metadata":{"k":"v"},"prompt_cache_key":"deck-1","safety_identifier":"h-1"}"#
        ),
        (
            .openAIChat,
            #"{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"https://example.com/a.png","detail":"low"}}]}],"modalities":["text"],"service_tier":"auto"}"#
        ),
        (
            .openAIResponses,
            #"{"model":"gpt-4.1","input":"Tell me a story.","instructions":"Be kind.","store":false,"text":{"format":{"type":"text"},"verbosity":"low"},"truncation":"auto"}"#
        ),
        (
            .openAIResponses,
            #"{"model":"o4-mini","reasoning":{"effort":"medium","summary":"auto"},"input":[{"role":"user","content":[{"type":"input_text","text":"What is 2+2?"}]},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA"},{"type":"function_call","id":"fc_1","call_id":"call_1","name":"add","arguments":"{}"},{"type":"function_call_output","call_id":"call_1","output":"4"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"4","annotations":[]}]}],"tools":[{"type":"function","name":"add","parameters":{"type":"object"},"strict":false}],"include":["reasoning.encrypted_content"],"stream":true}"#
        ),
        (
            .openAIResponses,
            #"{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"Describe"},{"type":"input_image","image_url":"https://example.com/a.png","detail":"auto"}]}],"text":{"format":{"type":"json_schema","name":"d","schema":{"type":"object"},"strict":true}}}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"Be brief.","messages":[{"role":"user","content":"Hello"}],"temperature":0.5,"top_k":5,"stop_sequences":["END"],"metadata":{"user_id":"u-1"}}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"claude-sonnet-4-5","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},"tools":[{"name":"get_weather","description":"Weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}],"tool_choice":{"type":"auto"},"messages":[{"role":"user","content":"Paris?"},{"role":"assistant","content":[{"type":"thinking","thinking":"...","signature":"sig"},{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"18C"}]}],"stream":true}"#
        ),
        (
            .anthropicMessages,
            #"{"model":"claude-sonnet-4-5","max_tokens":512,"system":[{"type":"text","text":"Long rules","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"text","text":"What is it?"}]}],"speed":"standard","service_tier":"standard_only"}"#
        ),
        (
            .geminiGenerate,
            #"{"contents":[{"role":"user","parts":[{"text":"Write a haiku"}]}],"systemInstruction":{"parts":[{"text":"You are a poet"}]},"generationConfig":{"temperature":0.9,"topK":40,"stopSequences":["END"],"thinkingConfig":{"thinkingBudget":256,"includeThoughts":false}},"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_ONLY_HIGH"}]}"#
        ),
        (
            .geminiGenerate,
            #"{"contents":[{"role":"user","parts":[{"text":"Lights on"}]},{"role":"model","parts":[{"functionCall":{"name":"lights","args":{"on":true}},"thoughtSignature":"c2ln"}]},{"role":"user","parts":[{"functionResponse":{"name":"lights","response":{"ok":true}}}]}],"tools":[{"functionDeclarations":[{"name":"lights","parameters":{"type":"object"}}]}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}},"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT"},"responseModalities":["TEXT"]}}"#
        ),
        (
            .geminiGenerate,
            #"{"contents":[{"parts":[{"inline_data":{"mime_type":"image/png","data":"iVBORw0KGgo="}},{"text":"What is this?"}]}],"generation_config":{"max_output_tokens":200,"thinking_config":{"thinking_budget":0}}}"#
        ),
    ]

    @Test(arguments: corpus)
    func realShapedRequestsPass(_ dialect: Dialect, _ body: String) throws {
        let prepared = try Self.prepare(dialect, body).get()
        let original = try JSONValue.parse(Array(body.utf8)).objectValue ?? [:]
        let forwarded = try JSONValue.parse(prepared.body).objectValue ?? [:]
        // The documented rewrites only: caps, the stream's usage, the service tier, Gemini's camel case.
        let rewritten: Set<String> = [
            "max_tokens", "max_completion_tokens", "max_output_tokens", "generationConfig", "generation_config",
            "stream_options", "service_tier",
        ]
        for (key, value) in original where !rewritten.contains(key) { #expect(forwarded[key] == value, "\(key)") }
    }

    /// Every class of field the providers document as billing beyond the body and the cap, and fields no
    /// reference documents at all, at each level.
    static let hostile: [(Dialect, String, DialectRefusal.Reason)] = [
        (.openAIChat, #"{"model":"m","messages":[],"foo":1}"#, .unknownField),
        (
            .openAIChat,
            #"{"model":"m","messages":[],"modalities":["text","audio"],"audio":{"voice":"alloy","format":"wav"}}"#,
            .premiumSwitch
        ),
        (.openAIChat, #"{"model":"m","messages":[],"audio":{"voice":"alloy","format":"wav"}}"#, .unknownField),
        (.openAIChat, #"{"model":"m","messages":[{"role":"assistant","audio":{"id":"audio_abc"}}]}"#, .unknownConfig),
        (.openAIChat, #"{"model":"m","messages":[],"prediction":{"type":"content","content":"x"}}"#, .unknownField),
        (
            .openAIChat, #"{"model":"m","messages":[],"prompt_cache_options":{"mode":"explicit","ttl":"30m"}}"#,
            .unknownField
        ),
        (
            .openAIChat,
            #"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x","prompt_cache_breakpoint":{"mode":"explicit"}}]}]}"#,
            .unknownConfig
        ),
        (
            .openAIChat, #"{"model":"m","messages":[{"role":"user","content":[{"type":"video","video":{}}]}]}"#,
            .unknownPart
        ),
        (.openAIChat, #"{"model":"m","messages":[{"role":"narrator","content":"x"}]}"#, .unknownPart),
        (.openAIChat, #"{"model":"m","messages":[],"stream_options":{"include_usage":true,"x":1}}"#, .unknownConfig),
        (.openAIChat, #"{"model":"m","messages":[],"service_tier":"scale"}"#, .premiumSwitch),
        (.openAIChat, #"{"model":"m","messages":[],"service_tier":"flex"}"#, .premiumSwitch),
        (.openAIChat, #"{"model":"m","messages":[],"moderation":{"model":"omni-moderation-latest"}}"#, .unknownField),
        (.openAIResponses, #"{"model":"m","input":"x","background":true}"#, .unknownField),
        (
            .openAIResponses,
            #"{"model":"m","input":"x","context_management":[{"type":"compaction","compact_threshold":1000}]}"#,
            .unknownField
        ),
        (.openAIResponses, #"{"model":"m","input":"x","reasoning":{"effort":"high","mode":"pro"}}"#, .unknownConfig),
        (
            .openAIResponses,
            #"{"model":"m","input":[{"type":"computer_call_output","call_id":"c","output":{"type":"computer_screenshot","image_url":"https://example.com/s.png"}}]}"#,
            .unknownPart
        ),
        (
            .openAIResponses,
            #"{"model":"m","input":[{"type":"additional_tools","role":"developer","tools":[{"type":"function","name":"f"}]}]}"#,
            .unknownPart
        ),
        (.openAIResponses, #"{"model":"m","input":"x","service_tier":"priority"}"#, .premiumSwitch),
        (.anthropicMessages, #"{"model":"m","max_tokens":10,"messages":[],"speed":"fast"}"#, .premiumSwitch),
        (
            .anthropicMessages,
            #"{"model":"m","max_tokens":10,"messages":[],"fallbacks":[{"model":"claude-opus-4-5"}]}"#, .unknownField
        ),
        (
            .anthropicMessages,
            #"{"model":"m","max_tokens":10,"messages":[],"context_management":{"edits":[{"type":"compact_20260112"}]}}"#,
            .unknownField
        ),
        (
            .anthropicMessages,
            #"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"web_search_tool_result","tool_use_id":"s","content":[]}]}]}"#,
            .unknownPart
        ),
        (
            .anthropicMessages,
            #"{"model":"m","max_tokens":10,"messages":[],"thinking":{"type":"enabled","budget_tokens":1024,"passes":3}}"#,
            .unknownConfig
        ),
        (.anthropicMessages, #"{"model":"m","max_tokens":10,"messages":[],"container":"cntr_1"}"#, .unknownField),
        (.geminiGenerate, #"{"contents":[],"generationConfig":{"speechConfig":{"voiceConfig":{}}}}"#, .unknownConfig),
        (.geminiGenerate, #"{"contents":[],"generation_config":{"speech_config":{}}}"#, .unknownConfig),
        (
            .geminiGenerate, #"{"contents":[],"generationConfig":{"responseModalities":["TEXT","AUDIO"]}}"#,
            .premiumSwitch
        ),
        (.geminiGenerate, #"{"contents":[],"generationConfig":{"routingConfig":{"autoMode":{}}}}"#, .unknownConfig),
        (.geminiGenerate, #"{"contents":[{"parts":[{"executableCode":{"code":"print(1)"}}]}]}"#, .unknownPart),
        (.geminiGenerate, #"{"contents":[],"modelArmorConfig":{}}"#, .unknownField),
        (
            .geminiGenerate,
            #"{"contents":[],"generationConfig":{"thinkingConfig":{"thinkingBudget":10,"mode":"deep"}}}"#,
            .unknownConfig
        ),
    ]

    @Test(arguments: hostile)
    func whatCannotBeBoundedIsRefusedWithItsClass(_ dialect: Dialect, _ body: String, _ reason: DialectRefusal.Reason) {
        #expect(throws: DialectRefusal(reason)) { try Self.prepare(dialect, body).get() }
    }

    /// A route's `allowFields` lets through the top-level fields its operator has priced; `service_tier` there
    /// lets OpenAI's `flex` through.
    @Test func aRoutesAllowFieldsAddPricedFields() throws {
        let priced = DialectPolicy(maxOutputTokens: 1024, allowFields: ["prediction", "service_tier"])
        let body = #"{"model":"m","messages":[],"prediction":{"type":"content","content":"x"},"service_tier":"flex"}"#
        let forwarded = try JSONValue.parse(Self.prepare(.openAIChat, body, policy: priced).get().body)
        #expect(forwarded["service_tier"] == .string("flex") && forwarded["prediction"] != nil)
        #expect(throws: DialectRefusal(.premiumSwitch)) {
            try Self.prepare(.openAIChat, #"{"model":"m","messages":[],"service_tier":"priority"}"#, policy: priced)
                .get()
        }
    }

    /// Absent or `auto` is sent as `default`: the project's own default may be a premium tier.
    @Test(arguments: [#"{"model":"m","messages":[]}"#, #"{"model":"m","messages":[],"service_tier":"auto"}"#])
    func openAIsServiceTierIsPinnedToDefault(_ body: String) throws {
        #expect(try JSONValue.parse(Self.prepare(.openAIChat, body).get().body)["service_tier"] == .string("default"))
    }

    /// Gemini's thinking budget is held within the output cap (1024 here); a dynamic budget (-1) too.
    @Test(arguments: [(Int64(100_000), Int64(1024)), (-1, 1024), (10, 10)])
    func geminisThinkingBudgetIsClampedWithinTheCap(budget: Int64, sent: Int64) throws {
        let body = #"{"contents":[],"generationConfig":{"thinkingConfig":{"thinking_budget":"# + "\(budget)}}}"
        let forwarded = try JSONValue.parse(Self.prepare(.geminiGenerate, body).get().body)
        let thinking = forwarded["generationConfig"]?["thinkingConfig"]
        #expect((thinking?["thinkingBudget"] ?? thinking?["thinking_budget"]) == .int(sent))
    }
}
