import AttestCore
import Testing

@Suite struct ConfigCommandTests {
    static let valid = [
        "TABLE_NAME": "attestgate", "AWS_REGION": "eu-west-1", "UPSTREAM_URL": "https://api.example.com",
        "UPSTREAM_API_KEY_FILE": "/run/secrets/upstream", "AWS_SECRET_ACCESS_KEY": "do-not-print",
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
    ]

    @Test func validSettingsPrintTheConfigurationAndExit0() async throws {
        let outcome = await CLIRunner.run(["config", "check"], environment: Self.valid)
        #expect(outcome.status == 0)
        let json = try JSONValue.parse(Array(outcome.stdout.utf8))
        #expect(json["result"] == .string("valid"))
        #expect(json["configuration"]?["tableName"] == .string("attestgate"))
        #expect(json["configuration"]?["upstream"]?["apiKey"] == .string("file:/run/secrets/upstream"))
        #expect(json["configuration"]?["awsCredentials"] == .string("set"))
        #expect(!outcome.stdout.contains("do-not-print"))
    }

    @Test func contradictionsAreNamedAndExit1() async throws {
        var env = Self.valid
        env["APP_ATTEST_ENVIRONMENT"] = "development"
        env["TABLE_NAME"] = nil
        let outcome = await CLIRunner.run(["config", "check"], environment: env)
        #expect(outcome.status == 1)
        let json = try JSONValue.parse(Array(outcome.stdout.utf8))
        #expect(json["result"] == .string("invalid"))
        let errors = (json["errors"]?.arrayValue ?? []).compactMap { $0["error"]?.stringValue }
        #expect(errors == ["config.missing_setting", "config.development_app_attest_in_production"])
    }

    @Test func usageErrorExits2() async {
        #expect(await CLIRunner.run(["config"], environment: Self.valid).status == 2)
        #expect(await CLIRunner.run(["config", "check", "--extra"], environment: Self.valid).status == 2)
    }
}
