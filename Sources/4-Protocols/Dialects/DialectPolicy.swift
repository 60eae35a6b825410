/// What a route allows a known dialect's request to ask for.
package struct DialectPolicy: Sendable, Hashable {
    /// The models a request may name; `nil` allows any.
    package var models: Set<String>?
    /// The output cap the forwarded request carries (the request's own cap is lowered to it, or set).
    package var maxOutputTokens: Int
    /// Whether media inputs (images, audio, files, inline or by reference) may pass: only on a route that
    /// declares `maxInputTokens`, since their tokens are not bounded by the body's bytes.
    package var acceptsMedia: Bool

    package init(models: Set<String>? = nil, maxOutputTokens: Int, acceptsMedia: Bool = false) {
        self.models = models
        self.maxOutputTokens = maxOutputTokens
        self.acceptsMedia = acceptsMedia
    }
}
