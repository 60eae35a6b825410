/// How the gate reads a route's request and answer bodies (the route's `dialect`, docs/dialects.md).
///
/// `opaque` forwards the body untouched and reads no usage. The others are the JSON APIs of the
/// providers AttestGate fronts: the gate checks the model, caps the output, refuses several choices and
/// reads the reported usage, so that every call has a worst case it can bound.
package enum Dialect: String, Sendable, Hashable, CaseIterable {
    /// No parsing: the body goes through as is (today's pass-through).
    case opaque
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    case openAIChat = "openai-chat"
    /// OpenAI Responses (`POST /v1/responses`).
    case openAIResponses = "openai-responses"
    /// Anthropic Messages (`POST /v1/messages`).
    case anthropicMessages = "anthropic-messages"
    /// Google Gemini `models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`); the model is
    /// in the upstream path, not the body.
    case geminiGenerate = "gemini-generate"

    /// Whether the gate parses bodies of this dialect (every case but `opaque`).
    package var isKnown: Bool { self != .opaque }
}
