/// The tokens a provider reported for one call.
package struct Usage: Sendable, Hashable {
    /// Input tokens, every class included (cache reads and writes, audio).
    package var inputTokens: Int
    /// Output tokens, thinking and reasoning tokens and every class included.
    package var outputTokens: Int
    /// The tokens of each class the provider bills at its own price, as parts of the totals (docs/dialects.md,
    /// "Prices per token class").
    package var classes: [TokenClass: Int]

    package init(inputTokens: Int, outputTokens: Int, classes: [TokenClass: Int] = [:]) {
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
        self.classes = classes.filter { $0.value > 0 }
    }

    /// Whether the classes fit in their totals (a provider's report that says otherwise is not read).
    package var isConsistent: Bool {
        var input = 0
        var output = 0
        for (kind, tokens) in classes {
            guard tokens >= 0 else { return false }
            if kind.isOutput { output += tokens } else { input += tokens }
        }
        return input <= inputTokens && output <= outputTokens
    }
}
