import AttestCore
import Testing

@Suite struct WarningThresholdTests {
    /// 80 % rounded up, at least 1: the warning never fires below 80 %.
    @Test(arguments: [(0, 1), (1, 1), (4, 4), (5, 4), (10, 8), (17, 14), (9_000, 7_200), (9_001, 7_201)])
    func eightyPercentRoundedUp(limit: Int, threshold: Int) {
        #expect(WarningThreshold.of(limit) == threshold)
        #expect(WarningThreshold.of(Int64(limit)) == Int64(threshold))
        if limit > 0 { #expect(Double(WarningThreshold.of(limit)) >= Double(limit) * 0.8) }
    }
}
