import Testing

@testable import Dialects

@Suite struct StreamUsageTests {
    static let streams: [(Dialect, String, Usage)] = [
        (.openAIChat, ProviderSamples.chatStream, Usage(inputTokens: 9, outputTokens: 12)),
        (.openAIResponses, ProviderSamples.responsesStream, Usage(inputTokens: 37, outputTokens: 11)),
        (.anthropicMessages, ProviderSamples.anthropicStream, Usage(inputTokens: 25, outputTokens: 15)),
        (.geminiGenerate, ProviderSamples.geminiStream, Usage(inputTokens: 8, outputTokens: 32)),
    ]

    static func read(_ dialect: Dialect, _ chunks: [ArraySlice<UInt8>]) -> Usage? {
        var reader = StreamUsage(dialect: dialect)
        for chunk in chunks { reader.feed(chunk) }
        return reader.usage
    }

    /// The stream with every line ending replaced by `end`.
    static func lineEnds(_ stream: String, _ end: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(stream)
        while let index = rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) {
            lines.append(rest[..<index])
            rest = rest[rest.index(after: index)...]
        }
        lines.append(rest)
        return lines.joined(separator: end)
    }

    /// The index just past the first occurrence of `needle`.
    static func end(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        var start = 0
        while !bytes[start...].starts(with: needle) { start += 1 }
        return start + needle.count
    }

    @Test(arguments: streams)
    func aStreamGivesItsFinalUsage(_ dialect: Dialect, _ stream: String, _ expected: Usage) {
        let bytes = Array(stream.utf8)
        #expect(Self.read(dialect, [bytes[...]]) == expected)
        // Any split: one byte at a time, and chunks of 7.
        #expect(Self.read(dialect, bytes.indices.map { bytes[$0...$0] }) == expected)
        let sevens = stride(from: 0, to: bytes.count, by: 7).map { bytes[$0..<min($0 + 7, bytes.count)] }
        #expect(Self.read(dialect, sevens) == expected)
        // LF, CRLF and CR line ends read the same.
        for end in ["\n", "\r\n", "\r"] {
            let reEnded = Array(Self.lineEnds(stream, end).utf8)
            #expect(Self.read(dialect, [reEnded[...]]) == expected)
        }
    }

    @Test(arguments: streams)
    func lineEndsMixedWithinOneStreamReadTheSame(_ dialect: Dialect, _ stream: String, _ expected: Usage) {
        // Each line ends differently from the one before (CRLF, LF, CR in turn: a CR is never followed by
        // an LF of the next end, which would make them one CRLF), in one piece and in pieces of 5 that
        // split a CRLF now and then: the first CR or LF ends a line, wherever it falls.
        let lines = Self.lineEnds(stream, "\n").split(separator: "\n", omittingEmptySubsequences: false)
        let ends = ["\r\n", "\n", "\r"]
        var mixed = ""
        for (index, line) in lines.enumerated() {
            mixed += line
            if index < lines.count - 1 { mixed += ends[index % ends.count] }
        }
        let bytes = Array(mixed.utf8)
        #expect(Self.read(dialect, [bytes[...]]) == expected)
        let fives = stride(from: 0, to: bytes.count, by: 5).map { bytes[$0..<min($0 + 5, bytes.count)] }
        #expect(Self.read(dialect, fives) == expected)
    }

    @Test(arguments: streams)
    func aStreamCutBeforeItsUsageGivesNone(_ dialect: Dialect, _ stream: String, _ expected: Usage) {
        // Cut inside the last event that carries usage: its blank line never arrives.
        let marker: String
        switch dialect {
        case .openAIChat: marker = #""choices":[],"usage""#
        case .openAIResponses: marker = "event: response.completed"
        case .anthropicMessages: marker = "event: message_delta"
        default: marker = #""finishReason""#
        }
        let bytes = Array(Self.lineEnds(stream, "\n").utf8)
        let markerEnd = Self.end(of: Array(marker.utf8), in: bytes)
        var reader = StreamUsage(dialect: dialect)
        reader.feed(bytes[..<markerEnd])
        reader.finish()
        #expect(reader.usage == nil)
        // The event's data complete but without its closing blank line is not complete either.
        let dataEnd = markerEnd + Self.end(of: [0x0A, 0x0A], in: Array(bytes[markerEnd...])) - 2
        var unterminated = StreamUsage(dialect: dialect)
        unterminated.feed(bytes[...dataEnd])
        #expect(unterminated.usage == nil)
        unterminated.finish()
        #expect(unterminated.usage == nil)
        // With its blank line it is.
        unterminated = StreamUsage(dialect: dialect)
        unterminated.feed(bytes[...dataEnd] + [0x0A])
        #expect(unterminated.usage == expected)
    }

    @Test func eventsFedOneByOneGiveTheSameUsage() {
        var reader = StreamUsage(dialect: .anthropicMessages)
        reader.receive(
            eventType: "message_start",
            data: Array(
                #"{"type":"message_start","message":{"usage":{"input_tokens":40,"cache_read_input_tokens":10,"output_tokens":1}}}"#
                    .utf8
            )
        )
        #expect(reader.usage == nil)
        reader.receive(
            eventType: "message_delta",
            data: Array(#"{"type":"message_delta","usage":{"output_tokens":7}}"#.utf8)
        )
        #expect(reader.usage == Usage(inputTokens: 50, outputTokens: 7, classes: [.cachedInput: 10]))
        // A later delta is cumulative and may restate the input side (server tools).
        reader.receive(
            eventType: "message_delta",
            data: Array(#"{"type":"message_delta","usage":{"input_tokens":90,"output_tokens":9}}"#.utf8)
        )
        #expect(reader.usage == Usage(inputTokens: 100, outputTokens: 9, classes: [.cachedInput: 10]))
    }

    @Test func anIncompleteResponsesStreamStillReportsUsage() {
        var reader = StreamUsage(dialect: .openAIResponses)
        reader.receive(
            eventType: "response.incomplete",
            data: Array(
                #"{"type":"response.incomplete","response":{"status":"incomplete","usage":{"input_tokens":5,"output_tokens":1024}}}"#
                    .utf8
            )
        )
        #expect(reader.usage == Usage(inputTokens: 5, outputTokens: 1024))
    }

    @Test func geminiUsageBeforeTheFinishIsNotFinal() {
        var reader = StreamUsage(dialect: .geminiGenerate)
        let bytes = Array(ProviderSamples.geminiStream.utf8)
        reader.feed(bytes[..<Self.end(of: Array("\r\n\r\n".utf8), in: bytes)])
        #expect(reader.usage == nil)
    }

    /// Events without a usage key are not parsed, yet a Gemini chunk that only finishes the candidate still
    /// makes the usage read before it final, and long text deltas in between change nothing.
    @Test func aGeminiFinishWithoutUsageMetadataMakesTheEarlierUsageFinal() {
        var reader = StreamUsage(dialect: .geminiGenerate)
        let text = String(repeating: "t", count: 20_000)
        reader.feed(Array(#"data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}],"#.utf8))
        reader.feed(Array(#""usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2}}"#.utf8) + [0x0D, 0x0A])
        reader.feed([0x0D])
        reader.feed(Array("\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\(text)\"}]}}]}\n\n".utf8))
        #expect(reader.usage == nil)
        let finish = #"data: {"candidates":[{"content":{"parts":[]},"finishReason":"STOP"}]}"#
        reader.feed(Array(finish.utf8) + [0x0A, 0x0A])
        #expect(reader.usage == Usage(inputTokens: 4, outputTokens: 2))
    }

    @Test func anEventOverTheBoundIsSkippedAndTheNextOneRead() {
        var reader = StreamUsage(dialect: .openAIChat, maxEventBytes: 256)
        let padding = String(repeating: "x", count: 10_000)
        reader.feed(Array(#"data: {"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1},"pad":""#.utf8))
        reader.feed(Array(padding.utf8))
        reader.feed(Array("\"}\n\n".utf8))
        #expect(reader.usage == nil)
        reader.feed(Array("data: {\"choices\":[],\n".utf8))
        reader.feed(Array("data: \"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4}}\n\n".utf8))
        #expect(reader.usage == Usage(inputTokens: 3, outputTokens: 4))
    }

    /// The last report wins, readable or not: a final report the reader cannot read never leaves an earlier,
    /// lower one standing (running usage on every chunk, as Gemini and some OpenAI-compatible servers send).
    @Test(arguments: [
        #"data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":"5000"}}"#,
        #"data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":-5}}"#,
        #"data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":5000}"#,
    ])
    func anUnreadableLastReportLeavesNoUsage(_ last: String) {
        var reader = StreamUsage(dialect: .openAIChat)
        reader.feed(Array((#"data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":1}}"# + "\n\n").utf8))
        #expect(reader.usage == Usage(inputTokens: 100, outputTokens: 1))
        reader.feed(Array((#"data: {"choices":[{"delta":{"content":"hi"}}],"usage":null}"# + "\n\n").utf8))
        #expect(reader.usage == Usage(inputTokens: 100, outputTokens: 1))
        reader.feed(Array((last + "\n\ndata: [DONE]\n\n").utf8))
        #expect(reader.usage == nil)
        // A readable report after it counts again.
        reader.feed(Array((#"data: {"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7}}"# + "\n\n").utf8))
        #expect(reader.usage == Usage(inputTokens: 100, outputTokens: 7))
    }

    @Test func aGeminiFinishWhoseUsageCannotBeReadLeavesNoUsage() {
        var reader = StreamUsage(dialect: .geminiGenerate)
        let first =
            #"data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":1}}"#
        reader.feed(Array((first + "\r\n\r\n").utf8))
        let finish =
            #"data: {"candidates":[{"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":4000,"thoughtsTokenCount":-1}}"#
        reader.feed(Array((finish + "\r\n\r\n").utf8))
        #expect(reader.usage == nil)
    }

    @Test func aLastReportTooLargeToReadLeavesNoUsage() {
        var reader = StreamUsage(dialect: .geminiGenerate, maxEventBytes: 512)
        let first =
            #"data: {"candidates":[{"content":{"parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1}}"#
        reader.feed(Array((first + "\n\n").utf8))
        let text = String(repeating: "t", count: 2_000)
        let finish =
            #"data: {"candidates":[{"content":{"parts":[{"text":""#
            + text
            + #""}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":900}}"#
        reader.feed(Array((finish + "\n\n").utf8))
        #expect(reader.usage == nil)
    }

    @Test func dataOfEventsNeverReadIsNotHeld() {
        // A Responses stream repeats the whole text in `response.output_text.done`: far over the bound here,
        // and skipped as it arrives, so the terminal event after it is still read.
        var reader = StreamUsage(dialect: .openAIResponses, maxEventBytes: 512)
        reader.feed(
            Array("event: response.output_text.done\ndata: {\"type\":\"response.output_text.done\",\"text\":\"".utf8)
        )
        for _ in 0..<100 { reader.feed([UInt8](repeating: UInt8(ascii: "x"), count: 1000)) }
        #expect(reader.heldBytes == 0)
        reader.feed(Array("\"}\n\n".utf8))
        reader.feed(Array("event: response.completed\ndata: {\"type\":\"response.completed\",".utf8))
        reader.feed(Array("\"response\":{\"usage\":{\"input_tokens\":2,\"output_tokens\":3}}}\n\n".utf8))
        #expect(reader.usage == Usage(inputTokens: 2, outputTokens: 3))
    }

    @Test func opaqueReadsNothing() {
        var reader = StreamUsage(dialect: .opaque)
        reader.feed(Array(ProviderSamples.chatStream.utf8))
        #expect(reader.usage == nil)
    }
}
