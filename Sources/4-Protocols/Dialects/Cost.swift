/// Call costs in integer micro-dollars, rounded up, computed in 128 bits and saturating at `Int64.max`
/// (a cost that never fits a budget), so no arithmetic on a hostile count can wrap.
package enum Cost {
    /// The most a call can cost: `inputTokens × input + maxOutputTokens × output`, rounded up to a
    /// micro-dollar.
    /// - Parameters:
    ///   - inputTokens: the input bound (`PreparedRequest.inputTokenBound(maxInputTokens:)`).
    ///   - maxOutputTokens: the output cap the forwarded request carries.
    ///   - price: the model's prices.
    /// - Returns: micro-dollars, at least the exact cost.
    package static func worstCase(inputTokens: Int, maxOutputTokens: Int, price: ModelPrice) -> Int64 {
        microUSD(input: inputTokens, output: maxOutputTokens, price: price)
    }

    /// What the provider's reported usage costs, rounded up to a micro-dollar.
    package static func actual(_ usage: Usage, price: ModelPrice) -> Int64 {
        microUSD(input: usage.inputTokens, output: usage.outputTokens, price: price)
    }

    private static func microUSD(input: Int, output: Int, price: ModelPrice) -> Int64 {
        let inputPart = UInt128(max(input, 0)) * UInt128(price.input.microUSDPerMTok)
        let outputPart = UInt128(max(output, 0)) * UInt128(price.output.microUSDPerMTok)
        let perMTok = inputPart + outputPart  // < 2^64 · 2^40 · 2, no overflow in 128 bits
        let (quotient, remainder) = perMTok.quotientAndRemainder(dividingBy: 1_000_000)
        let roundedUp = quotient + (remainder == 0 ? 0 : 1)
        return roundedUp > UInt128(Int64.max) ? Int64.max : Int64(roundedUp)
    }
}
