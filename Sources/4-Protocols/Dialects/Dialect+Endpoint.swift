extension Dialect {
    /// Why `upstreamPath` is not this dialect's endpoint, nil when it is (checked at start-up): a known dialect
    /// bounds and prices one API, so a route can never point it at another with other billing rules (OpenAI's
    /// legacy completions with `best_of`, batches, realtime; Anthropic's batches or token counting).
    ///
    /// The path is the part before any query (`?api-version=` on Azure OpenAI): `…/chat/completions` for
    /// `openai-chat` (OpenAI, Azure deployments and `/openai/v1`), `…/responses` for `openai-responses`,
    /// `…/messages` for `anthropic-messages`, `…/models/{model}:generateContent` or `:streamGenerateContent` for
    /// `gemini-generate` (`GeminiMethod`).
    package func endpointProblem(_ upstreamPath: String) -> String? {
        let path =
            upstreamPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first
            .map(String.init) ?? ""
        let suffix: String
        switch self {
        case .opaque: return nil
        case .openAIChat: suffix = "/chat/completions"
        case .openAIResponses: suffix = "/responses"
        case .anthropicMessages: suffix = "/messages"
        case .geminiGenerate:
            return GeminiMethod(upstreamPath: upstreamPath) == nil
                ? "upstreamPath must be /…/models/{model}:generateContent or …:streamGenerateContent?alt=sse with"
                    + " dialect gemini-generate"
                : nil
        }
        return path.hasSuffix(suffix)
            ? nil : "upstreamPath must be the \(rawValue) endpoint (…\(suffix)), not \(path.prefix(80))"
    }
}
