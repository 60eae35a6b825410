/// What a route allows a known dialect's request to ask for.
package struct DialectPolicy: Sendable, Hashable {
    /// The models a request may name; `nil` allows any.
    package var models: Set<String>?
    /// The output cap the forwarded request carries (the request's own cap is lowered to it, or set).
    package var maxOutputTokens: Int

    package init(models: Set<String>? = nil, maxOutputTokens: Int) {
        self.models = models
        self.maxOutputTokens = maxOutputTokens
    }
}
