/// A request body a dialect accepted, rewritten for the provider.
package struct PreparedRequest: Sendable, Hashable {
    /// The bytes to forward: the client's JSON with the output cap set or lowered, and for a streamed
    /// OpenAI chat request `stream_options.include_usage: true`. `opaque` forwards the client's bytes.
    package var body: [UInt8]
    /// The model the provider will run (from the body, or for Gemini the upstream path); `nil` for `opaque`.
    package var model: String?
    /// Whether the provider will answer with server-sent events.
    package var streams: Bool
    /// The output cap that applies to the call; `nil` for `opaque`.
    package var maxOutputTokens: Int?
    /// How many base-price input tokens one input token may cost at most: 2 for an Anthropic request
    /// that writes to the prompt cache (`cache_control`; a 1-hour cache write costs twice the base
    /// input price), 1 otherwise. `Usage.inputTokens` is counted the same way.
    package var inputTokenWeight: Int
    /// Input tokens the provider adds that the body does not carry (Anthropic's tool-use system prompt).
    package var inputTokenOverhead: Int

    package init(
        body: [UInt8],
        model: String?,
        streams: Bool,
        maxOutputTokens: Int?,
        inputTokenWeight: Int = 1,
        inputTokenOverhead: Int = 0
    ) {
        self.body = body
        self.model = model
        self.streams = streams
        self.maxOutputTokens = maxOutputTokens
        self.inputTokenWeight = inputTokenWeight
        self.inputTokenOverhead = inputTokenOverhead
    }

    /// The most base-price input tokens the forwarded body can cost: its byte count (every token of a
    /// byte-level tokenizer is at least one byte of text), or the route's `maxInputTokens` when that is
    /// larger (a route that takes media declares the most one call can bill, text and media together),
    /// plus `inputTokenOverhead`; times `inputTokenWeight`. A declaration never lowers the bound below the
    /// bytes: a text body larger than it still bills every token it carries. Saturates at `Int.max`.
    /// - Parameter maxInputTokens: the route's declared input bound.
    /// - Parameter weighted: false when the route prices the dearer classes the weight stands for.
    package func inputTokenBound(maxInputTokens: Int? = nil, weighted: Bool = true) -> Int {
        let tokens = max(body.count, maxInputTokens ?? 0)
        let (withOverhead, overflow1) = tokens.addingReportingOverflow(max(inputTokenOverhead, 0))
        let (weighted, overflow2) = (overflow1 ? Int.max : withOverhead).multipliedReportingOverflow(
            by: weighted ? inputTokenWeight : 1
        )
        return overflow2 ? Int.max : weighted
    }
}
