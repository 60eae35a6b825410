import App
import AttestCore
import Dialects
import Gate
import Testing

/// The issue-15 settings: release policy, request and time bounds, dialects, prices and the money ceiling.
@Suite struct ConfigurationLayerThreeTests {
    static let chat =
        #"{"method":"POST","path":"/v1/chat","feature":"chat","upstreamPath":"/v1/chat/completions","#
        + #""dialect":"openai-chat","models":["gpt-4.1","gpt-4.1-mini"],"maxOutputTokens":1000,"#
        + #""maxRequestBytes":20000,"upstreamTimeoutMs":8000,"release":"unbilled","releaseStatuses":[429,503],"#
        + #""prices":{"gpt-4.1":{"inputPerMTok":2,"outputPerMTok":8},"gpt-4.1-mini":{"inputPerMTok":0.4,"#
        + #""outputPerMTok":1.6}}}"#

    func configuration(_ routes: String, _ extra: [String: String] = [:]) throws -> Configuration {
        var env = ConfigurationTests.minimal.with("ROUTES", routes)
        for (name, value) in extra { env = env.with(name, value) }
        return try Configuration(environment: env)
    }

    func problems(_ routes: String, _ extra: [String: String] = [:]) -> [String] {
        do {
            _ = try configuration(routes, extra)
            return []
        } catch let error as ConfigurationError {
            return error.problems.map { "\($0.reason.slug) \($0.variable): \($0.detail)" }
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test func theDefaultsKeepUnitsUnlessTheProviderProvablyDidNotBill() throws {
        let route = try #require(try configuration(#"[{"method":"POST","path":"/a","feature":"a"}]"#).routes.first)
        #expect(route.release == .unbilled && route.releaseStatuses == [429, 503, 529])
        #expect(route.maxRequestBytes == 1_048_576 && route.upstreamTimeout == nil)
        #expect(route.dialect == .opaque && route.prices.isEmpty)
    }

    /// Gemini streams from `…:streamGenerateContent?alt=sse`: a query of plain characters is kept as given.
    @Test func aStreamedGeminiRouteKeepsItsQuery() throws {
        let routes =
            #"[{"method":"POST","path":"/v1/ask","feature":"ask","dialect":"gemini-generate","maxOutputTokens":64,"#
            + #""models":["gemini-2.5-flash"],"stream":true,"#
            + #""upstreamPath":"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"}]"#
        #expect(problems(routes) == [])
        let route = try #require(try configuration(routes).routes.first)
        #expect(route.upstreamPath == "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
        #expect(route.stream)
    }

    @Test func everyLayerThreeRouteFieldIsRead() throws {
        let config = try configuration("[\(Self.chat)]", ["AI_DAILY_COST_CEILING_USD": "12.5"])
        let route = try #require(config.routes.first)
        #expect(config.aiDailyCostCeilingMicros == 12_500_000)
        #expect(route.dialect.rawValue == "openai-chat" && route.models == ["gpt-4.1", "gpt-4.1-mini"])
        #expect(route.maxOutputTokens == 1000 && route.maxRequestBytes == 20_000)
        #expect(route.upstreamTimeout == .milliseconds(8000) && route.releaseStatuses == [429, 503])
        #expect(route.prices["gpt-4.1-mini"]?.input.microUSDPerMTok == 400_000)
        // config check: the dearest model's worst case and how many of them the budget holds.
        let worst: JSONValue? = config.summary["routes"]?.arrayValue?.first?["worstCase"]
        let expected: Int64 = 20_000 * 2 + 1000 * 8
        #expect(worst?["model"]?.stringValue == "gpt-4.1")
        #expect(worst?["microUSD"]?.intValue == expected)
        #expect(worst?["callsPerDailyBudget"]?.intValue == 12_500_000 / expected)
    }

    @Test func theSeedsReleaseIsRefusedInProductionUnlessAllowed() throws {
        let seed = #"[{"method":"POST","path":"/a","feature":"a","release":"seed"}]"#
        #expect(problems(seed).contains { $0.hasPrefix("config.seed_release_in_production ROUTES") })
        #expect(try configuration(seed, ["ALLOW_SEED_RELEASE": "true"]).routes.first?.release == .seed)
        #expect(
            try configuration(seed, ["ATTESTGATE_ENV": "development", "APP_ATTEST_ENVIRONMENT": "development"])
                .routes.first?.release == .seed
        )
    }

    @Test func aMoneyCeilingNeedsEveryRouteBounded() {
        let opaque = #"[{"method":"POST","path":"/a","feature":"a"}]"#
        #expect(
            problems(opaque, ["AI_DAILY_COST_CEILING_USD": "10"]).contains { $0.contains("config.unbounded_route") }
        )
        #expect(problems("[\(Self.chat)]", ["AI_DAILY_COST_CEILING_USD": "10"]).isEmpty)
        #expect(
            problems(opaque, ["AI_DAILY_COST_CEILING_USD": "ten"]).contains { $0.contains("config.invalid_number") }
        )
    }

    /// Each known dialect's endpoint as the providers and their clouds spell it (Azure OpenAI's deployment path
    /// with its `api-version`, its `/openai/v1` path) starts.
    @Test(arguments: [
        ("openai-chat", "/v1/chat/completions"),
        ("openai-chat", "/openai/deployments/gpt-4-1/chat/completions?api-version=2024-10-21"),
        ("openai-chat", "/openai/v1/chat/completions"), ("openai-responses", "/v1/responses"),
        ("anthropic-messages", "/v1/messages"), ("gemini-generate", "/v1beta/models/gemini-2.5-flash:generateContent"),
    ])
    func aDialectsOwnEndpointStarts(dialect: String, path: String) {
        let route =
            #"[{"method":"POST","path":"/a","feature":"a","dialect":""# + dialect
            + #"","maxOutputTokens":9,"upstreamPath":""# + path + #""}]"#
        #expect(problems(route).isEmpty, "\(problems(route))")
    }

    @Test(arguments: [
        (#"{"release":"always"}"#, "release must be"),
        // Lambda's 6 MiB response with its envelope (base64 and the headers), and 20 MiB streams with the prelude.
        (#"{"maxResponseBytes":6291456}"#, "maxResponseBytes must be 1...4669440"),
        (#"{"stream":true,"maxStreamBytes":20971520}"#, "maxStreamBytes must be"),
        (#"{"releaseStatuses":[200]}"#, "releaseStatuses must be"),
        (#"{"maxRequestBytes":0}"#, "maxRequestBytes must be"),
        (#"{"upstreamTimeoutMs":5}"#, "upstreamTimeoutMs must be"),
        (#"{"dialect":"cohere"}"#, "dialect must be"),
        (#"{"dialect":"openai-chat"}"#, "maxOutputTokens is required"),
        (#"{"maxOutputTokens":100}"#, "needs a known dialect"),
        (#"{"dialect":"openai-chat","maxOutputTokens":0}"#, "maxOutputTokens must be"),
        (
            #"{"dialect":"gemini-generate","maxOutputTokens":9,"upstreamPath":"/v1beta/models/gemini-2.5-pro:generateContent","models":["gemini-2.5-flash"]}"#,
            "not in models"
        ),
        (#"{"dialect":"gemini-generate","maxOutputTokens":9,"upstreamPath":"/v1/generate"}"#, "upstreamPath must be"),
        (
            #"{"dialect":"gemini-generate","maxOutputTokens":9,"stream":true,"upstreamPath":"/v1beta/models/m:generateContent"}"#,
            "stream: true needs"
        ),
        // A known dialect bounds one API: never an endpoint with other billing rules.
        (#"{"dialect":"openai-chat","maxOutputTokens":9,"upstreamPath":"/v1/completions"}"#, "openai-chat endpoint"),
        (#"{"dialect":"openai-chat","maxOutputTokens":9,"upstreamPath":"/v1/batches"}"#, "openai-chat endpoint"),
        (#"{"dialect":"openai-chat","maxOutputTokens":9}"#, "openai-chat endpoint"),
        (
            #"{"dialect":"openai-responses","maxOutputTokens":9,"upstreamPath":"/v1/realtime"}"#,
            "openai-responses endpoint"
        ),
        (
            #"{"dialect":"anthropic-messages","maxOutputTokens":9,"upstreamPath":"/v1/messages/batches"}"#,
            "anthropic-messages endpoint"
        ),
        (#"{"dialect":"openai-chat","maxOutputTokens":9,"allowFields":["a b"]}"#, "allowFields must be"),
        // A template the closed world refuses, or that names a variable it does not declare, never starts.
        (
            #"{"dialect":"openai-chat","maxOutputTokens":9,"upstreamPath":"/v1/chat/completions","template":{"body":{"model":"m","messages":[],"audio":{"voice":"alloy"},"user":"{{u}}"},"variables":{"u":{"type":"string","maxLength":9}}}}"#,
            "template body is refused by its dialect"
        ),
        (#"{"template":{"body":{"a":"{{x}}"},"variables":{}}}"#, "template must be"),
        (#"{"template":{"body":{"a":"{{x}}"},"variables":{"y":{"type":"boolean"}}}}"#, "names no variable"),
        (#"{"upstreamPath":"/v1/x?"}"#, "upstreamPath must be"),
        (#"{"upstreamPath":"/v1/x?a=1#b"}"#, "upstreamPath must be"),
        (#"{"upstreamPath":"/v1/x?a=b c"}"#, "upstreamPath must be"),
        (#"{"upstreamPath":"/v1/x?a=1?b"}"#, "upstreamPath must be"),
        (
            #"{"dialect":"openai-chat","maxOutputTokens":9,"models":["a","b"],"prices":{"a":{"inputPerMTok":1,"outputPerMTok":1}}}"#,
            "prices has no entry for b"
        ),
        (
            #"{"dialect":"openai-chat","maxOutputTokens":9,"prices":{"a":{"inputPerMTok":0.0000001,"outputPerMTok":1}}}"#,
            "prices must be"
        ),
    ])
    func badLayerThreeFieldsAreNamed(fields: String, fragment: String) {
        let base = #"{"method":"POST","path":"/a","feature":"a","#
        let routes = "[" + base + fields.dropFirst() + "]"
        let found = problems(routes)
        #expect(found.contains { $0.contains(fragment) }, "\(found)")
    }
}
