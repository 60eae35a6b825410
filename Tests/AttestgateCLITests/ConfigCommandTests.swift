import AttestCore
import Glibc
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

    /// Lambda's 4 KB environment: a large route table is refused by `config check` (as by `terraform plan`), and
    /// the same table shipped as a file (`ROUTES_FILE`) is not.
    @Test func anEnvironmentOverLambdasQuotaIsRefusedAndTheFileCarriesIt() async throws {
        let routes = JSONValue.array(
            (0..<40).map { index in
                .object([
                    "method": "POST", "path": .string("/v1/feature-\(index)"), "feature": .string("feature_\(index)"),
                    "allowance": .object(["firstDay": 20, "laterDays": 10]),
                ])
            }
        )
        let text = String(decoding: routes.serializedBytes, as: UTF8.self)
        #expect(text.utf8.count > 4096)
        var large = Self.valid
        large["ROUTES"] = text
        let refused = await CLIRunner.run(["config", "check"], environment: large)
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("config.environment_too_large"))

        let path = "/tmp/attestgate-routes-\(getpid()).json"
        let file = fopen(path, "w")
        fputs(text, file)
        fclose(file)
        defer { unlink(path) }
        var shipped = Self.valid
        shipped["ROUTES_FILE"] = path
        let accepted = await CLIRunner.run(["config", "check"], environment: shipped)
        #expect(accepted.status == 0, "\(accepted.stdout)")
        let json = try JSONValue.parse(Array(accepted.stdout.utf8))
        #expect((json["environmentBytes"]?.intValue ?? 9999) < 4096)
        #expect(json["configuration"]?["routes"]?.arrayValue?.count == 40)
    }

    @Test func usageErrorExits2() async {
        #expect(await CLIRunner.run(["config"], environment: Self.valid).status == 2)
        #expect(await CLIRunner.run(["config", "check", "--extra"], environment: Self.valid).status == 2)
    }
}
