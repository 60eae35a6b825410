internal import AttestCore

extension Dialect {
    /// Checks a client's request body against the route's policy and rewrites it for the provider.
    ///
    /// For a known dialect: parses the JSON (an object, no duplicate keys), refuses a model outside
    /// `policy.models` and more than one choice, sets the output cap or lowers it to
    /// `policy.maxOutputTokens`, and for a streamed OpenAI chat request asks for the final usage chunk.
    /// Unknown fields pass through. `opaque` returns the body untouched.
    /// - Parameters:
    ///   - body: the client's request body.
    ///   - policy: the route's models and output cap.
    ///   - upstreamPath: the route's `upstreamPath`; Gemini reads the model and streaming from it
    ///     (`/v1beta/models/{model}:generateContent` or `…:streamGenerateContent?alt=sse`).
    /// - Returns: the request to forward, or why it is refused (the gate answers 400 `invalid_request`).
    package func prepare(
        body: [UInt8],
        policy: DialectPolicy,
        upstreamPath: String = ""
    ) -> Result<PreparedRequest, DialectRefusal> {
        guard isKnown else {
            return .success(PreparedRequest(body: body, model: nil, streams: false, maxOutputTokens: nil))
        }
        return .failure(DialectRefusal(.malformedBody, detail: "not implemented yet"))
    }
}
