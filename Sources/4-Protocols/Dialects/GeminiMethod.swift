/// The model and method of a Gemini upstream path: `…/models/{model}:generateContent` (buffered) or
/// `…/models/{model}:streamGenerateContent?alt=sse` (server-sent events).
package struct GeminiMethod: Sendable, Hashable {
    package var model: String
    package var streams: Bool

    /// `nil` when the path names no `models/{model}` with one of those methods (a streamed path must ask
    /// for `alt=sse`; without it Gemini streams a JSON array the gate does not read).
    package init?(upstreamPath: String) {
        return nil
    }
}
