import TestSupport
import Testing

@testable import AttestCore

@Suite struct RFC3339Tests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (951_782_400_123, "2000-02-29T00:00:00.123Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (1_796_541_518_892, "2026-12-06T07:18:38.892Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    ])
    func knownInstants(millis: Int64, expected: String) {
        #expect(RFC3339.utc(millis: millis) == expected)
    }

    @Test func aLoggerStampsEveryLineFromItsClock() {
        let sink = CapturingLogSink()
        let logger = Logger(level: .debug, sink: sink, clock: { 951_782_400_123 })
        logger.warning("w")
        logger.record("decision")
        #expect(
            sink.lines == [
                #"{"level":"WARN","message":"w","timestamp":"2000-02-29T00:00:00.123Z"}"#,
                #"{"level":"INFO","message":"decision","timestamp":"2000-02-29T00:00:00.123Z"}"#,
            ]
        )
    }
}
