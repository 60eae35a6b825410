/// The tokens a provider reported for one call.
package struct Usage: Sendable, Hashable {
    /// Input tokens in base-input-price units (cache writes and reads included; docs/dialects.md).
    package var inputTokens: Int
    /// Output tokens, thinking and reasoning tokens included.
    package var outputTokens: Int

    package init(inputTokens: Int, outputTokens: Int) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }
}
