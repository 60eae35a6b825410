internal import AttestCore

extension Dialect {
    /// The usage a provider reported in a buffered (non-streamed) JSON answer.
    /// - Parameter answer: the provider's answer body.
    /// - Returns: the tokens, or `nil` when the answer has no readable usage (the gate then keeps the
    ///   call's reservation). Always `nil` for `opaque`.
    package func usage(fromAnswer answer: [UInt8]) -> Usage? {
        guard isKnown, let json = try? JSONValue.parse(answer) else { return nil }
        switch self {
        case .opaque: return nil
        case .openAIChat: return OpenAIChat.usage(json)
        case .openAIResponses: return OpenAIResponses.usage(json)
        case .anthropicMessages: return json["usage"]?.objectValue.flatMap(AnthropicMessages.usage)
        case .geminiGenerate: return GeminiGenerate.usage(json)
        }
    }
}
