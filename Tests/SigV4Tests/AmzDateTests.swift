import FoundationEssentials
import Testing

@testable import SigV4

@Suite struct AmzDateTests {
    @Test func rendersUTCFieldsWithPadding() {
        // 2015-08-30T12:36:00Z, the suites' instant.
        let date = AmzDate(Date(timeIntervalSince1970: 1_440_938_160))
        #expect(date.timestamp == "20150830T123600Z")
        #expect(date.day == "20150830")
    }

    @Test func truncatesSubSecondsAndPadsSmallFields() {
        // 2001-02-03T04:05:06.9Z
        let date = AmzDate(Date(timeIntervalSince1970: 981_173_106.9))
        #expect(date.timestamp == "20010203T040506Z")
    }
}
