import App
import AttestCore
import Testing

/// The fraud-risk metric's settings (docs/api.md section 5): `RISK_METRIC_MAX` and `APP_ATTEST_RECEIPT_ENDPOINT`.
@Suite struct RiskSettingsTests {
    static let apple = ["APPLE_TEAM_ID": "TEAMID1234", "APPLE_BUNDLE_IDS": "com.example.app"]

    func configuration(_ extra: [String: String]) throws -> Configuration {
        try Configuration(environment: DeviceCheckSettingsTests.environment(Self.apple.merging(extra) { $1 }))
    }

    func problems(_ extra: [String: String]) -> [String] {
        do {
            _ = try Configuration(environment: DeviceCheckSettingsTests.environment(Self.apple.merging(extra) { $1 }))
            return []
        } catch {
            return error.problems.map { "\($0.reason.slug) \($0.variable)" }
        }
    }

    @Test func theDefaultsFollowTheAppAttestEnvironment() throws {
        let production = try configuration([:])
        #expect(production.riskMetricMax == 5)
        #expect(production.appAttestReceiptEndpoint == "https://data.appattest.apple.com")
        #expect(production.summary["appAttest"]?["receiptEndpoint"] == .string("https://data.appattest.apple.com"))
        #expect(production.summary["appAttest"]?["riskMetricMax"] == .int(5))
        let development = try configuration(["ATTESTGATE_ENV": "development", "APP_ATTEST_ENVIRONMENT": "development"])
        #expect(development.appAttestReceiptEndpoint == "https://data-development.appattest.apple.com")
    }

    @Test func aMaximumAndAnEndpointAreRead() throws {
        let set = try configuration(["RISK_METRIC_MAX": "0", "APP_ATTEST_RECEIPT_ENDPOINT": "https://receipts.example"])
        #expect(set.riskMetricMax == 0)
        #expect(set.appAttestReceiptEndpoint == "https://receipts.example")
        // A local fake over plain http, outside production only.
        let local = try configuration([
            "ATTESTGATE_ENV": "development", "APP_ATTEST_RECEIPT_ENDPOINT": "http://127.0.0.1:9",
        ])
        #expect(local.appAttestReceiptEndpoint == "http://127.0.0.1:9")
        #expect(
            problems(["APP_ATTEST_RECEIPT_ENDPOINT": "http://127.0.0.1:9"])
                == ["config.development_only APP_ATTEST_RECEIPT_ENDPOINT"]
        )
    }

    @Test(arguments: ["-1", "1001", "5.0", "five"]) func aBadMaximumIsNamed(_ value: String) {
        #expect(problems(["RISK_METRIC_MAX": value]) == ["config.invalid_number RISK_METRIC_MAX"])
    }

    @Test func aBadEndpointIsNamed() {
        for value in ["ftp://data.appattest.apple.com", "http://example.com", "https://a.example/?x=1"] {
            #expect(
                problems(["APP_ATTEST_RECEIPT_ENDPOINT": value]) == ["config.invalid_url APP_ATTEST_RECEIPT_ENDPOINT"]
            )
        }
    }
}
