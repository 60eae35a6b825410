/// A price per million tokens, held exactly as integer micro-dollars per million tokens.
///
/// Parsed from the decimal text of the `prices` setting (`"2.5"`, `0.15`, `3`), never through floating-point
/// arithmetic: `0.15` is 150,000 micro-dollars per million tokens, exactly.
package struct TokenPrice: Sendable, Hashable, Comparable {
    /// The highest price accepted: one million dollars per million tokens.
    package static let maximumMicroUSDPerMTok: Int64 = 1_000_000_000_000

    package let microUSDPerMTok: Int64

    package init?(microUSDPerMTok: Int64) {
        guard microUSDPerMTok >= 0, microUSDPerMTok <= Self.maximumMicroUSDPerMTok else { return nil }
        self.microUSDPerMTok = microUSDPerMTok
    }

    package static func < (lhs: TokenPrice, rhs: TokenPrice) -> Bool { lhs.microUSDPerMTok < rhs.microUSDPerMTok }
}

/// The prices of one model: text input and output, and the classes the route prices
/// (`{"inputPerMTok":USD,"outputPerMTok":USD,"cacheWritePerMTok":USD,…}`, docs/dialects.md).
package struct ModelPrice: Sendable, Hashable {
    package var input: TokenPrice
    package var output: TokenPrice
    /// Each priced class; a class without one is priced by its dialect's rule or not at all
    /// (`Dialect.classPrice`).
    package var classes: [TokenClass: TokenPrice]

    package init(input: TokenPrice, output: TokenPrice, classes: [TokenClass: TokenPrice] = [:]) {
        self.input = input
        self.output = output
        self.classes = classes
    }

    /// The dearest price an input token can reach (text or a priced input class), and an output token.
    package var dearestInput: TokenPrice {
        classes.filter { !$0.key.isOutput }.values.reduce(input) { max($0, $1) }
    }

    package var dearestOutput: TokenPrice {
        classes.filter { $0.key.isOutput }.values.reduce(output) { max($0, $1) }
    }
}
