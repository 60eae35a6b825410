import AttestCore
import Testing

@testable import Dialects

/// Template routes (docs/dialects.md, "Template routes"): the client fills declared variables, the gate renders
/// the provider request; anything else is refused.
@Suite struct RequestTemplateTests {
    static let template = try! RequestTemplate(
        json: try! JSONValue.parse(
            Array(
                #"""
                {"body":{"model":"gpt-4.1-mini","max_completion_tokens":300,"temperature":"{{temperature}}",
                 "messages":[{"role":"system","content":"Write {{count}} flashcards. Level: {{level}}."},
                 {"role":"user","content":"{{topic}}"}]},
                 "variables":{"topic":{"type":"string","maxLength":200},"level":{"type":"string","maxLength":12,
                 "enum":["beginner","expert"]},"count":{"type":"string","maxLength":2},"temperature":{"type":"number"}}}
                """#.utf8
            )
        )
    )

    static func render(_ body: String) -> Result<JSONValue, DialectRefusal> {
        template.render(Array(body.utf8)).map { (try? JSONValue.parse($0)) ?? .null }
    }

    @Test func theVariablesAreRenderedIntoTheProviderRequest() throws {
        let body = try Self.render(
            #"{"variables":{"topic":"Photosynthesis \"light\" phase","level":"expert","count":"5","temperature":0.2}}"#
        ).get()
        #expect(body["temperature"] == .double(0.2))
        #expect(body["messages"]?.arrayValue?.first?["content"] == "Write 5 flashcards. Level: expert.")
        #expect(body["messages"]?.arrayValue?.last?["content"] == #"Photosynthesis "light" phase"#)
        #expect(body["model"] == "gpt-4.1-mini" && body["max_completion_tokens"] == .int(300))
    }

    @Test(arguments: [
        (#"{"variables":{"level":"expert","count":"5","temperature":1}}"#, DialectRefusal.Reason.templateVariable),
        (
            #"{"variables":{"topic":"x","level":"expert","count":"5","temperature":1,"model":"gpt-5"}}"#,
            .templateVariable
        ),
        (#"{"variables":{"topic":7,"level":"expert","count":"5","temperature":1}}"#, .templateVariable),
        (#"{"variables":{"topic":"x","level":"expert","count":"500","temperature":1}}"#, .templateVariable),
        (#"{"variables":{"topic":"x","level":"wizard","count":"5","temperature":1}}"#, .templateVariable),
        (#"{"variables":{"topic":"x","level":"expert","count":"5","temperature":"hot"}}"#, .templateVariable),
        // A prompt smuggled beside the variables, or instead of them.
        (#"{"variables":{"topic":"x","level":"expert","count":"5","temperature":1},"messages":[]}"#, .templateBody),
        (#"{"model":"gpt-4.1","messages":[{"role":"user","content":"anything"}]}"#, .templateBody),
        (#"{"variables":[]}"#, .templateBody),
        ("not json", .malformedBody),
    ])
    func anythingButTheDeclaredVariablesIsRefused(_ body: String, _ reason: DialectRefusal.Reason) {
        #expect(throws: DialectRefusal(reason)) { try Self.render(body).get() }
    }

    @Test func aTopicAtItsMaximumIsAcceptedAndOneMoreCharacterIsNot() throws {
        let at = String(repeating: "é", count: 200)
        _ = try Self.render(#"{"variables":{"topic":""# + at + #"","level":"expert","count":"5","temperature":1}}"#)
            .get()
        #expect(throws: DialectRefusal(.templateVariable)) {
            try Self.render(#"{"variables":{"topic":""# + at + #"e","level":"expert","count":"5","temperature":1}}"#)
                .get()
        }
    }

    @Test(arguments: [
        #"{"body":{"a":"{{missing}}"},"variables":{}}"#,
        #"{"body":{"a":"x"},"variables":{"unused":{"type":"string","maxLength":3}}}"#,
        #"{"body":{"a":"{{s}}"},"variables":{"s":{"type":"string"}}}"#,
        #"{"body":{"{{s}}":1},"variables":{"s":{"type":"string","maxLength":3}}}"#,
        #"{"body":{"a":"{{s}}"},"variables":{"s":{"type":"string","maxLength":3,"enum":["long one"]}}}"#,
        #"{"body":"text","variables":{}}"#,
    ])
    func aTemplateThatCannotBeBoundedIsRefusedAtStart(_ text: String) throws {
        let json = try JSONValue.parse(Array(text.utf8))
        #expect(throws: TemplateProblem.self) { _ = try RequestTemplate(json: json) }
    }
}
