/// Reads a provider's final usage from its server-sent event stream, one chunk or event at a time,
/// holding at most one event (`maxEventBytes`) and never the stream.
///
/// OpenAI chat: the last chunk before `[DONE]` (`stream_options.include_usage`); OpenAI Responses: the
/// `response.completed` / `response.incomplete` / `response.failed` event; Anthropic: `message_start`'s
/// input usage and the cumulative `message_delta` usage; Gemini: the `usageMetadata` of the chunk that
/// finishes the candidate. `usage` stays `nil` until the stream has said its final usage.
package struct StreamUsage: Sendable {
    package let dialect: Dialect
    package let maxEventBytes: Int

    package init(dialect: Dialect, maxEventBytes: Int = 262_144) {
        self.dialect = dialect
        self.maxEventBytes = maxEventBytes
    }

    /// The final usage, once the stream has reported it; `nil` before, or when it never does.
    package private(set) var usage: Usage?

    /// Feeds raw stream bytes as they arrive (any split: lines and events may span chunks).
    package mutating func feed(_ bytes: some Collection<UInt8>) {}

    /// Feeds one whole event (the `event:` field, and the `data:` lines joined by `\n`), for a caller
    /// that splits the stream itself.
    package mutating func receive(eventType: String?, data: [UInt8]) {}
}
