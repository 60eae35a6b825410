import AttestCore
import Testing

@testable import Dialects

@Suite struct CostTests {
    static func price(_ input: String, _ output: String) -> ModelPrice {
        ModelPrice(input: TokenPrice(usd: input)!, output: TokenPrice(usd: output)!)
    }

    @Test(arguments: [
        ("0.15", 150_000 as Int64?), ("2.5", 2_500_000), ("3", 3_000_000), ("0", 0), ("0.000001", 1),
        ("1e-6", 1), ("2.5e1", 25_000_000), ("1.10", 1_100_000), ("1000000", 1_000_000_000_000),
        ("0.0000001", nil), ("0.1234567", nil), ("-1", nil), ("1000000.000001", nil), ("", nil), ("abc", nil),
        ("1.2.3", nil), ("1e", nil), ("1e99999", nil), (" 1", nil), ("NaN", nil), ("1e-7", nil),
    ])
    func pricesParseExactly(_ text: String, _ micro: Int64?) {
        #expect(TokenPrice(usd: text)?.microUSDPerMTok == micro)
    }

    @Test func pricesFromJSONNumbersAvoidFloatingPoint() throws {
        let prices = try JSONValue.parse(Array(#"{"a":0.15,"b":3,"c":0.1,"d":2.675,"e":1e-7,"f":"1","g":-2}"#.utf8))
        #expect(TokenPrice(json: prices["a"]!)?.microUSDPerMTok == 150_000)
        #expect(TokenPrice(json: prices["b"]!)?.microUSDPerMTok == 3_000_000)
        #expect(TokenPrice(json: prices["c"]!)?.microUSDPerMTok == 100_000)
        #expect(TokenPrice(json: prices["d"]!)?.microUSDPerMTok == 2_675_000)
        #expect(TokenPrice(json: prices["e"]!) == nil)
        #expect(TokenPrice(json: prices["f"]!) == nil)
        #expect(TokenPrice(json: prices["g"]!) == nil)
    }

    @Test func aRoutePricesEntryReadsBothSides() throws {
        let entry = try JSONValue.parse(Array(#"{"inputPerMTok":3,"outputPerMTok":15.5}"#.utf8))
        #expect(ModelPrice(json: entry) == Self.price("3", "15.5"))
        for text in [
            #"{"inputPerMTok":3}"#, #"{"inputPerMTok":3,"outputPerMTok":"15"}"#, #"[3,15]"#,
            #"{"inputPerMTok":3,"outputPerMTok":15,"cachedPerMTok":1}"#, #"{"inputPerMTok":-3,"outputPerMTok":15}"#,
        ] {
            #expect(ModelPrice(json: try JSONValue.parse(Array(text.utf8))) == nil, "\(text)")
        }
    }

    @Test func theWorstCaseIsExactOrRoundedUp() {
        let sonnet = Self.price("3", "15")
        // 1,000 input bytes × $3/MTok + 1,024 output × $15/MTok = 3,000 + 15,360 µ$.
        #expect(Cost.worstCase(inputTokens: 1000, maxOutputTokens: 1024, price: sonnet) == 18_360)
        // 7 × $0.15/MTok = 1.05 µ$ → 2; one token of anything costs at least a micro-dollar.
        let mini = Self.price("0.15", "0.6")
        #expect(Cost.worstCase(inputTokens: 7, maxOutputTokens: 0, price: mini) == 2)
        #expect(Cost.worstCase(inputTokens: 1, maxOutputTokens: 0, price: mini) == 1)
        #expect(Cost.worstCase(inputTokens: 0, maxOutputTokens: 0, price: mini) == 0)
        // The parts are summed before rounding: 0.5 + 0.6 = 1.1 µ$ → 2 (not 1 + 1).
        let halves = Self.price("0.5", "0.6")
        #expect(Cost.worstCase(inputTokens: 1, maxOutputTokens: 1, price: halves) == 2)
        #expect(Cost.worstCase(inputTokens: 2, maxOutputTokens: 0, price: halves) == 1)
    }

    @Test func theActualCostComesFromTheUsage() {
        let gpt = Self.price("2.5", "10")
        // 47.5 + 100 → 148
        #expect(Cost.actual(Usage(inputTokens: 19, outputTokens: 10), price: gpt, dialect: .openAIChat) == .cost(148))
        #expect(
            Cost.actual(Usage(inputTokens: 1_000_000, outputTokens: 1_000_000), price: gpt, dialect: .openAIChat)
                == .cost(12_500_000)
        )
        #expect(Cost.actual(Usage(inputTokens: 0, outputTokens: 0), price: gpt, dialect: .openAIChat) == .cost(0))
    }

    /// Each class at its price: the route's, else the dialect's rule (a cache read at the input price, Anthropic's
    /// writes at 1.25× and 2×); a class with neither keeps the reservation (`unpriced`).
    @Test func eachTokenClassIsPricedOrTheUsageIsUnpriced() {
        let sonnet = Self.price("3", "15")
        // 1,000 input: 100 plain, 200 read, 300 written for 5 minutes, 400 for an hour; 10 output.
        let cached = Usage(
            inputTokens: 1000,
            outputTokens: 10,
            classes: [.cachedInput: 200, .cacheWrite: 300, .cacheWrite1h: 400]
        )
        // 100×3 + 200×3 + 300×3.75 + 400×6 + 10×15 dollars per million = 4,575 µ$.
        #expect(Cost.actual(cached, price: sonnet, dialect: .anthropicMessages) == .cost(4575))
        let many = Usage(
            inputTokens: 1_000_000,
            outputTokens: 0,
            classes: [.cachedInput: 200_000, .cacheWrite: 300_000, .cacheWrite1h: 400_000]
        )
        #expect(
            Cost.actual(many, price: sonnet, dialect: .anthropicMessages)
                == .cost(300_000 + 600_000 + 1_125_000 + 2_400_000)
        )
        // The route's own price wins over the rule; OpenAI has no rule for writes: unpriced until the route says.
        var declared = sonnet
        declared.classes[.cachedInput] = TokenPrice(usd: "0.3")!
        #expect(
            Cost.actual(many, price: declared, dialect: .anthropicMessages)
                == .cost(300_000 + 60_000 + 1_125_000 + 2_400_000)
        )
        let written = Usage(inputTokens: 1_000_000, outputTokens: 0, classes: [.cacheWrite: 1_000_000])
        #expect(Cost.actual(written, price: sonnet, dialect: .openAIChat) == .unpriced(.cacheWrite))
        declared.classes[.cacheWrite] = TokenPrice(usd: "3.75")!
        #expect(Cost.actual(written, price: declared, dialect: .openAIChat) == .cost(3_750_000))
        let audio = Usage(inputTokens: 0, outputTokens: 100, classes: [.audioOutput: 100])
        #expect(Cost.actual(audio, price: sonnet, dialect: .geminiGenerate) == .unpriced(.audioOutput))
        // The worst case takes the dearest priced class.
        #expect(Cost.worstCase(inputTokens: 1_000_000, maxOutputTokens: 0, price: declared) == 3_750_000)
    }

    @Test func hugeCountsSaturateInsteadOfWrapping() {
        let top = ModelPrice(
            input: TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok)!,
            output: TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok)!
        )
        #expect(Cost.worstCase(inputTokens: .max, maxOutputTokens: .max, price: top) == .max)
        #expect(Cost.actual(Usage(inputTokens: -5, outputTokens: -5), price: top, dialect: .openAIChat) == .cost(0))
        // Just below saturation the arithmetic is exact: (2^63 − 1) tokens at $1/MTok.
        let dollar = Self.price("1", "1")
        #expect(Cost.worstCase(inputTokens: .max, maxOutputTokens: 0, price: dollar) == Int64.max)
        #expect(Cost.worstCase(inputTokens: 9_000_000_000_000, maxOutputTokens: 0, price: dollar) == 9_000_000_000_000)
        #expect(TokenPrice(microUSDPerMTok: -1) == nil)
        #expect(TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok + 1) == nil)
    }
}
