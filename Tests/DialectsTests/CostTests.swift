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
        #expect(Cost.actual(Usage(inputTokens: 19, outputTokens: 10), price: gpt) == 148)  // 47.5 + 100 → 148
        #expect(Cost.actual(Usage(inputTokens: 1_000_000, outputTokens: 1_000_000), price: gpt) == 12_500_000)
        #expect(Cost.actual(Usage(inputTokens: 0, outputTokens: 0), price: gpt) == 0)
    }

    @Test func hugeCountsSaturateInsteadOfWrapping() {
        let top = ModelPrice(
            input: TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok)!,
            output: TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok)!
        )
        #expect(Cost.worstCase(inputTokens: .max, maxOutputTokens: .max, price: top) == .max)
        #expect(Cost.actual(Usage(inputTokens: -5, outputTokens: -5), price: top) == 0)
        // Just below saturation the arithmetic is exact: (2^63 − 1) tokens at $1/MTok.
        let dollar = Self.price("1", "1")
        #expect(Cost.worstCase(inputTokens: .max, maxOutputTokens: 0, price: dollar) == Int64.max)
        #expect(Cost.worstCase(inputTokens: 9_000_000_000_000, maxOutputTokens: 0, price: dollar) == 9_000_000_000_000)
        #expect(TokenPrice(microUSDPerMTok: -1) == nil)
        #expect(TokenPrice(microUSDPerMTok: TokenPrice.maximumMicroUSDPerMTok + 1) == nil)
    }
}
