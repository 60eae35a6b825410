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

/// The input and output prices of one model (`{"inputPerMTok":USD,"outputPerMTok":USD}`).
package struct ModelPrice: Sendable, Hashable {
    package var input: TokenPrice
    package var output: TokenPrice

    package init(input: TokenPrice, output: TokenPrice) {
        self.input = input
        self.output = output
    }
}
