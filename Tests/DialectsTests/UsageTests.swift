import Testing

@testable import Dialects

@Suite struct UsageTests {
    @Test(arguments: [
        (Dialect.openAIChat, ProviderSamples.chatAnswer, Usage(inputTokens: 19, outputTokens: 10)),
        (.openAIResponses, ProviderSamples.responsesAnswer, Usage(inputTokens: 36, outputTokens: 87)),
        // 2095 + 2 × 100 cache writes + 1000 cache reads, all in base-price tokens.
        (.anthropicMessages, ProviderSamples.anthropicAnswer, Usage(inputTokens: 3295, outputTokens: 503)),
        // Thinking tokens are output: 12 + 950.
        (.geminiGenerate, ProviderSamples.geminiAnswer, Usage(inputTokens: 8, outputTokens: 962)),
    ])
    func aBufferedAnswerGivesItsUsage(_ dialect: Dialect, _ answer: String, _ expected: Usage) {
        #expect(dialect.usage(fromAnswer: Array(answer.utf8)) == expected)
    }

    @Test func geminiCountsWhatTheTotalHoldsBeyondTheKnownFields() {
        let answer =
            #"{"usageMetadata":{"promptTokenCount":10,"toolUsePromptTokenCount":5,"candidatesTokenCount":20,"totalTokenCount":60}}"#
        #expect(
            Dialect.geminiGenerate.usage(fromAnswer: Array(answer.utf8)) == Usage(inputTokens: 15, outputTokens: 45)
        )
        let blocked =
            #"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":7,"totalTokenCount":7}}"#
        #expect(Dialect.geminiGenerate.usage(fromAnswer: Array(blocked.utf8)) == Usage(inputTokens: 7, outputTokens: 0))
    }

    @Test(arguments: [
        (Dialect.openAIChat, #"{"choices":[]}"#),
        (.openAIChat, #"{"usage":null}"#),
        (.openAIChat, #"{"usage":{"prompt_tokens":19}}"#),
        (.openAIChat, #"{"usage":{"prompt_tokens":-1,"completion_tokens":10}}"#),
        (.openAIChat, #"{"usage":{"prompt_tokens":"19","completion_tokens":10}}"#),
        (.openAIChat, #"{"usage":{"prompt_tokens":1.5,"completion_tokens":10}}"#),
        (.openAIChat, #"{"usage":{"prompt_tokens":19,"completion_tokens":10}"#),
        (.openAIResponses, #"{"usage":{"prompt_tokens":19,"completion_tokens":10}}"#),
        (.anthropicMessages, #"{"usage":{"input_tokens":5}}"#),
        (.anthropicMessages, #"{"usage":{"input_tokens":5,"output_tokens":1,"cache_read_input_tokens":"9"}}"#),
        (.geminiGenerate, #"{"usageMetadata":{"candidatesTokenCount":5}}"#),
        (.geminiGenerate, #"{"usage":{"input_tokens":5,"output_tokens":1}}"#),
        (.opaque, ProviderSamples.chatAnswer),
        (.openAIChat, "<html>502 Bad Gateway</html>"),
    ])
    func anAnswerWithoutReadableUsageGivesNone(_ dialect: Dialect, _ answer: String) {
        #expect(dialect.usage(fromAnswer: Array(answer.utf8)) == nil)
    }
}
