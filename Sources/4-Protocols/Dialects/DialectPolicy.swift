internal import AttestCore

/// What a route allows a known dialect's request to ask for.
package struct DialectPolicy: Sendable, Hashable {
    /// The models a request may name; `nil` allows any.
    package var models: Set<String>?
    /// The output cap the forwarded request carries (the request's own cap is lowered to it, or set).
    package var maxOutputTokens: Int
    /// Whether media inputs (images, audio, files, inline or by reference) may pass: only on a route that
    /// declares `maxInputTokens`, since their tokens are not bounded by the body's bytes.
    package var acceptsMedia: Bool
    /// Top-level fields the operator has priced beyond the dialect's closed world (the route's `allowFields`);
    /// `service_tier` here also lets OpenAI's `flex` through.
    package var allowFields: Set<String>

    package init(
        models: Set<String>? = nil,
        maxOutputTokens: Int,
        acceptsMedia: Bool = false,
        allowFields: Set<String> = []
    ) {
        self.models = models
        self.maxOutputTokens = maxOutputTokens
        self.acceptsMedia = acceptsMedia
        self.allowFields = allowFields
    }

    /// Checks a request against the dialect's `shape` with the route's `allowFields` added at the top.
    /// - Throws: `DialectRefusal` naming the class of the first member outside it.
    func checkClosedWorld(
        _ request: [String: JSONValue],
        _ shape: RequestShape,
        normalize: (String) -> String = { $0 }
    ) throws(DialectRefusal) {
        try shape.adding(allowFields).check(.object(request), at: "body", normalize: normalize)
    }
}
