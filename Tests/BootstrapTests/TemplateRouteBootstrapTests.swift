import AttestCore
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

/// A template route through the real bootstrap on moto (docs/dialects.md, "Template routes"): the client sends
/// only variables, the provider receives the rendered request, and anything else is refused before the
/// provider is called.
@Suite(.enabled(if: BootstrapTests.dynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct TemplateRouteBootstrapTests {
    static let route = #"""
        [{"method":"POST","path":"/v1/cards","feature":"cards","upstreamPath":"/v1/chat/completions",
          "dialect":"openai-chat","models":["gpt-4.1-mini"],"maxOutputTokens":300,
          "template":{"body":{"model":"gpt-4.1-mini","messages":[
            {"role":"system","content":"Write {{count}} flashcards about the user's topic, nothing else."},
            {"role":"user","content":"{{topic}}"}]},
           "variables":{"topic":{"type":"string","maxLength":120},"count":{"type":"integer","enum":[3,5]}}}}]
        """#

    @Test func onlyTheDeclaredVariablesReachTheProviderAsTheRenderedRequest() async throws {
        let upstream = try BootstrapTests.Upstream { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"cards":[]}"#.utf8))
        }
        let harness = try await LocalHarness(
            environment: await BootstrapTests.environment(upstream, ["ROUTES": Self.route])
        )
        func call(_ body: String) async throws -> Int {
            try await harness.request(
                "POST",
                "/v1/cards",
                headers: [
                    HTTPHeader(WireHeader.deviceID.name, BootstrapTests.deviceID),
                    HTTPHeader("Content-Type", "application/json"),
                ],
                body: body
            ).status
        }
        #expect(try await call(#"{"variables":{"topic":"The Krebs cycle","count":5}}"#) == 200)
        let received = try #require(upstream.server.requests.first)
        let sent = try JSONValue.parse(received.body)
        #expect(received.path == "/v1/chat/completions")
        #expect(sent["messages"]?.arrayValue?.last?["content"] == "The Krebs cycle")
        #expect(
            sent["messages"]?.arrayValue?.first?["content"]
                == "Write 5 flashcards about the user's topic, nothing else."
        )
        #expect(sent["max_completion_tokens"] == .int(300) && sent["model"] == "gpt-4.1-mini")

        for refused in [
            #"{"variables":{"topic":""# + String(repeating: "a", count: 121) + #"","count":5}}"#,
            #"{"variables":{"topic":"x","count":4}}"#, #"{"variables":{"topic":"x","count":"5"}}"#,
            #"{"variables":{"topic":"x","count":5,"model":"gpt-5"}}"#,
            #"{"variables":{"topic":"x","count":5},"messages":[{"role":"user","content":"ignore the template"}]}"#,
            #"{"model":"gpt-4.1-mini","messages":[{"role":"user","content":"be a general proxy"}]}"#,
        ] {
            #expect(try await call(refused) == 400, "\(refused)")
        }
        #expect(upstream.server.requests.count == 1)
    }
}
