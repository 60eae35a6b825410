import AttestCore
import TestSupport
import Testing

@testable import Gate

@Suite struct DecisionRecordTests {
    @Test func emfBlockNamesExactlyTheCountedMetricsWithTheContractDimensions() throws {
        var record = DecisionRecord(environment: "production", route: "generation", mode: .monitor)
        record.count("attestation_check")
        record.count("would_block")
        record.decision = "would_block"
        let sink = CapturingLogSink()
        record.emit(to: Logger(sink: sink), timestampMillis: 1_796_000_000_000)
        let line = try #require(sink.objects.first)
        #expect(line["logger"] == .string("attestgate.decision"))
        #expect(line["attestation_check"] == .int(1) && line["would_block"] == .int(1) && line["block"] == nil)
        let emf = try #require(line["_aws"]?["CloudWatchMetrics"]?.arrayValue?.first)
        #expect(emf["Namespace"] == .string("AttestGate"))
        #expect(
            emf["Dimensions"]
                == .array([
                    .array([.string("environment")]),
                    .array([.string("environment"), .string("route"), .string("mode")]),
                ])
        )
        let names = emf["Metrics"]?.arrayValue?.compactMap { $0["Name"]?.stringValue }
        #expect(names == ["attestation_check", "would_block"])
        #expect(line["route"] == .string("generation") && line["mode"] == .string("monitor"))
    }

    /// A priced call's money and token metrics: a second directive by environment, route and model, micro-dollars
    /// without a unit, tokens as counts; none without a model.
    @Test func aPricedCallCarriesItsMoneyAndTokenMetricsByModel() throws {
        var record = DecisionRecord(environment: "production", route: "chat", mode: .enforce)
        record.count("budget_used")
        record.model = "gpt-test"
        record.costReservedMicros = 900
        record.costMicros = 600
        record.inputTokens = 10
        record.outputTokens = 20
        let line = record.object(timestampMillis: 0)
        let directives = try #require(line["_aws"]?["CloudWatchMetrics"]?.arrayValue)
        #expect(directives.count == 2)
        let spend = try #require(directives.last)
        #expect(spend["Dimensions"] == .array([.array([.string("environment"), .string("route"), .string("model")])]))
        let metrics = spend["Metrics"]?.arrayValue?.compactMap { metric -> String? in
            guard let name = metric["Name"]?.stringValue, let unit = metric["Unit"]?.stringValue else { return nil }
            return "\(name):\(unit)"
        }
        #expect(metrics == ["costReservedMicros:None", "costMicros:None", "inputTokens:Count", "outputTokens:Count"])
        #expect(line["costMicros"] == .int(600) && line["model"] == .string("gpt-test"))
        record.model = nil
        #expect(record.object(timestampMillis: 0)["_aws"]?["CloudWatchMetrics"]?.arrayValue?.count == 1)
    }

    @Test func clientControlledValuesCannotAddOrOverrideMetricsOrDimensions() throws {
        var record = DecisionRecord(environment: "production", route: "generation", mode: .enforce)
        record.count("block")
        // A hostile value in a field stays a string value of that field: fields are properties of the record,
        // so none can be named after a metric or a dimension.
        record.model = #"x","block":0,"would_block":1,"route":"forged"#
        record.reason = #"route":"forged"#
        let sink = CapturingLogSink()
        record.emit(to: Logger(sink: sink), timestampMillis: 0)
        let line = try #require(sink.objects.first)
        #expect(line["block"] == .int(1))
        #expect(line["would_block"] == nil && line["unavailable"] == nil)
        #expect(line["route"] == .string("generation"))
        #expect(line["model"] == .string(#"x","block":0,"would_block":1,"route":"forged"#))
        #expect(sink.lines.count == 1 && !sink.lines[0].contains("\n"))
    }

    /// `LOG_LEVEL=warning` (or `error`) must not mute the lines every alarm reads; other info lines stay muted.
    @Test(arguments: Logger.Level.allCases)
    func decisionLinesAreWrittenAtEveryLogLevel(_ level: Logger.Level) throws {
        var record = DecisionRecord(environment: "production", route: "generation", mode: .enforce)
        record.count("block")
        let sink = CapturingLogSink()
        let logger = Logger(level: level, sink: sink)
        logger.info("an ordinary info line")
        record.emit(to: logger, timestampMillis: 0)
        let decisions = sink.objects.filter { $0["logger"] == .string("attestgate.decision") }
        #expect(decisions.count == 1)
        #expect(decisions.first?["block"] == .int(1))
        #expect(decisions.first?["level"] == .string("INFO"))
        #expect(sink.lines.count == (level <= .info ? 2 : 1))
    }
}
