import Testing

@testable import Dialects

@Suite struct UsageTests {
    @Test(arguments: [
        (Dialect.openAIChat, ProviderSamples.chatAnswer, Usage(inputTokens: 19, outputTokens: 10)),
        (.openAIResponses, ProviderSamples.responsesAnswer, Usage(inputTokens: 36, outputTokens: 87)),
        // 2095 + 100 cache writes (no TTL said: the dearer 1-hour one) + 1000 cache reads, each its class.
        (
            .anthropicMessages, ProviderSamples.anthropicAnswer,
            Usage(inputTokens: 3195, outputTokens: 503, classes: [.cacheWrite1h: 100, .cachedInput: 1000])
        ),
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

/// The providers' usage breakdowns, read into classes (docs/dialects.md, "Prices per token class").
@Suite struct UsageClassTests {
    @Test(arguments: [
        (
            Dialect.openAIChat,
            #"{"usage":{"prompt_tokens":1000,"completion_tokens":300,"total_tokens":1300,"prompt_tokens_details":{"cached_tokens":400,"cache_write_tokens":200,"audio_tokens":100},"completion_tokens_details":{"reasoning_tokens":50,"audio_tokens":120,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}"#,
            Usage(
                inputTokens: 1000,
                outputTokens: 300,
                classes: [.cachedInput: 400, .cacheWrite: 200, .audioInput: 100, .audioOutput: 120]
            )
        ),
        (
            .openAIResponses,
            #"{"usage":{"input_tokens":500,"input_tokens_details":{"cached_tokens":300,"cache_write_tokens":50},"output_tokens":80,"output_tokens_details":{"reasoning_tokens":40},"total_tokens":580}}"#,
            Usage(inputTokens: 500, outputTokens: 80, classes: [.cachedInput: 300, .cacheWrite: 50])
        ),
        (
            .anthropicMessages,
            #"{"usage":{"input_tokens":20,"cache_creation_input_tokens":300,"cache_read_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200},"output_tokens":50,"service_tier":"standard"}}"#,
            Usage(
                inputTokens: 1320,
                outputTokens: 50,
                classes: [.cachedInput: 1000, .cacheWrite: 100, .cacheWrite1h: 200]
            )
        ),
        (
            .geminiGenerate,
            #"{"usageMetadata":{"promptTokenCount":600,"cachedContentTokenCount":200,"candidatesTokenCount":1300,"thoughtsTokenCount":100,"totalTokenCount":2000,"promptTokensDetails":[{"modality":"TEXT","tokenCount":500},{"modality":"AUDIO","tokenCount":100}],"candidatesTokensDetails":[{"modality":"TEXT","tokenCount":10},{"modality":"IMAGE","tokenCount":1290}]}}"#,
            Usage(
                inputTokens: 600,
                outputTokens: 1400,
                classes: [.cachedInput: 200, .audioInput: 100, .imageOutput: 1290]
            )
        ),
    ])
    func breakdownsBecomeClasses(_ dialect: Dialect, _ answer: String, _ expected: Usage) {
        #expect(dialect.usage(fromAnswer: Array(answer.utf8)) == expected)
    }

    /// Classes larger than their total are a report the gate does not read (the reservation stays).
    @Test func classesBeyondTheirTotalAreNotRead() {
        let answer =
            #"{"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":400}}}"#
        #expect(Dialect.openAIChat.usage(fromAnswer: Array(answer.utf8)) == nil)
    }
}
