import Testing

@testable import Dialects

@Suite struct CostTests {
    @Test func pricesParseExactly() {
        #expect(TokenPrice(usd: "0.15")?.microUSDPerMTok == 150_000)
    }
}
