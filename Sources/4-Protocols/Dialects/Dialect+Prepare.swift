internal import AttestCore

extension Dialect {
    /// Checks a client's request body against the route's policy and rewrites it for the provider.
    ///
    /// For a known dialect: parses the JSON (an object, no duplicate keys), refuses a model outside
    /// `policy.models`, more than one choice and context stored at the provider, sets the output cap or
    /// lowers it to `policy.maxOutputTokens`, and for a streamed OpenAI chat request asks for the final
    /// usage chunk. Every other field passes through (the body is re-serialised: same members, keys
    /// sorted). `opaque` returns the body untouched.
    /// - Parameters:
    ///   - body: the client's request body.
    ///   - policy: the route's models and output cap.
    ///   - upstreamPath: the route's `upstreamPath`; only Gemini reads it (the model and whether it
    ///     streams are in the path: `/v1beta/models/{model}:generateContent` or
    ///     `…:streamGenerateContent?alt=sse`).
    /// - Returns: the request to forward, or why it is refused (the gate answers 400 `invalid_request`).
    package func prepare(
        body: [UInt8],
        policy: DialectPolicy,
        upstreamPath: String = ""
    ) -> Result<PreparedRequest, DialectRefusal> {
        do throws(DialectRefusal) {
            switch self {
            case .opaque:
                return .success(PreparedRequest(body: body, model: nil, streams: false, maxOutputTokens: nil))
            case .openAIChat:
                return .success(try OpenAIChat.prepare(RequestFields.object(body), policy: policy))
            case .openAIResponses:
                return .success(try OpenAIResponses.prepare(RequestFields.object(body), policy: policy))
            case .anthropicMessages:
                return .success(try AnthropicMessages.prepare(RequestFields.object(body), policy: policy))
            case .geminiGenerate:
                guard let method = GeminiMethod(upstreamPath: upstreamPath) else {
                    throw DialectRefusal(.pathInvalid, detail: "upstreamPath \(upstreamPath.prefix(128))")
                }
                return .success(
                    try GeminiGenerate.prepare(RequestFields.object(body), method: method, policy: policy)
                )
            }
        } catch {
            return .failure(error)
        }
    }
}
