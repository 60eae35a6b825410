/// Call costs in integer micro-dollars, rounded up, computed in 128 bits and saturating at `Int64.max`
/// (a cost that never fits a budget), so no arithmetic on a hostile count can wrap.
package enum Cost {
    /// The most a call can cost: `inputTokens × the dearest input price + maxOutputTokens × the dearest output
    /// price` (`ModelPrice.dearestInput`, `dearestOutput`: text, or a class the route prices), rounded up.
    /// - Parameters:
    ///   - inputTokens: the input bound (`PreparedRequest.inputTokenBound(maxInputTokens:)`).
    ///   - maxOutputTokens: the output cap the forwarded request carries.
    ///   - price: the model's prices.
    /// - Returns: micro-dollars, at least the exact cost.
    package static func worstCase(inputTokens: Int, maxOutputTokens: Int, price: ModelPrice) -> Int64 {
        microUSD([(inputTokens, price.dearestInput), (maxOutputTokens, price.dearestOutput)])
    }

    /// What a reported usage costs.
    package enum Priced: Sendable, Hashable {
        case cost(Int64)
        /// The usage has tokens of a class neither the route nor the dialect prices: the reservation stays.
        case unpriced(TokenClass)
    }

    /// What the provider's reported usage costs, each class at its price (`dialect.classPrice`), the rest at
    /// the text prices, rounded up to a micro-dollar.
    package static func actual(_ usage: Usage, price: ModelPrice, dialect: Dialect) -> Priced {
        var parts: [(Int, TokenPrice)] = []
        var classInput = 0
        var classOutput = 0
        for kind in TokenClass.allCases {
            guard let tokens = usage.classes[kind], tokens > 0 else { continue }
            guard let classPrice = dialect.classPrice(kind, price) else { return .unpriced(kind) }
            parts.append((tokens, classPrice))
            if kind.isOutput { classOutput += tokens } else { classInput += tokens }
        }
        parts.append((max(0, usage.inputTokens - classInput), price.input))
        parts.append((max(0, usage.outputTokens - classOutput), price.output))
        return .cost(microUSD(parts))
    }

    private static func microUSD(_ parts: [(tokens: Int, price: TokenPrice)]) -> Int64 {
        // Each part < 2^63 · 2^40: the sum of eight fits 128 bits.
        let perMTok = parts.reduce(UInt128(0)) { $0 + UInt128(max($1.tokens, 0)) * UInt128($1.price.microUSDPerMTok) }
        let (quotient, remainder) = perMTok.quotientAndRemainder(dividingBy: 1_000_000)
        let roundedUp = quotient + (remainder == 0 ? 0 : 1)
        return roundedUp > UInt128(Int64.max) ? Int64.max : Int64(roundedUp)
    }
}

extension Dialect {
    /// The price of a class of tokens: the route's, else the provider's documented rule where there is one
    /// (a cache read at the input price, which it never exceeds; Anthropic's cache writes at 1.25× and 2× the
    /// input price), else nil: the class is unpriced and the call keeps its whole reservation.
    package func classPrice(_ kind: TokenClass, _ price: ModelPrice) -> TokenPrice? {
        if let declared = price.classes[kind] { return declared }
        switch (kind, self) {
        case (.cachedInput, _): return price.input
        case (.cacheWrite, .anthropicMessages): return price.input.scaled(5, over: 4)
        case (.cacheWrite1h, .anthropicMessages): return price.input.scaled(2, over: 1)
        default: return nil
        }
    }
}

extension TokenPrice {
    /// This price × `numerator` / `denominator`, rounded up (within the maximum).
    func scaled(_ numerator: Int64, over denominator: Int64) -> TokenPrice {
        let value = (microUSDPerMTok * numerator + denominator - 1) / denominator
        return TokenPrice(microUSDPerMTok: min(value, Self.maximumMicroUSDPerMTok)) ?? self
    }
}
