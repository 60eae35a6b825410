import App
import AttestCore
import Gate
import Testing

@Suite struct ConfigurationTests {
    static let minimal = Environment([
        "TABLE_NAME": "attestgate", "AWS_REGION": "eu-west-1", "UPSTREAM_URL": "https://api.example.com/v1",
        "UPSTREAM_API_KEY_SECRET_ARN": "arn:aws:secretsmanager:eu-west-1:1:secret:upstream",
    ])

    func problems(_ env: Environment) -> [ConfigurationError.Problem] {
        do {
            _ = try Configuration(environment: env)
            return []
        } catch {
            return error.problems
        }
    }

    func reasons(_ env: Environment) -> [String] { problems(env).map { "\($0.reason.slug) \($0.variable)" } }

    @Test func defaults() throws {
        let config = try Configuration(environment: Self.minimal)
        #expect(config.environment == .production)
        #expect(config.gateMode == .monitor)
        #expect(config.challengeTTLSeconds == 300)
        #expect(config.appAttestEnvironment == .production)
        #expect(config.googleTokenEndpoint == "https://oauth2.googleapis.com/token")
        #expect(config.playIntegrityEndpoint == "https://playintegrity.googleapis.com")
        #expect(config.playDecodeBudgetPerDevice == 30)
        #expect(config.playDecodeDailySoftCap == 9000)
        #expect(config.aiDailyCallCeiling == 0)
        #expect(config.budgetTimeZone == "UTC")
        #expect(config.upstream.authHeader == "Authorization")
        #expect(config.upstream.apiKey == .secretARN("arn:aws:secretsmanager:eu-west-1:1:secret:upstream"))
        #expect(config.logLevel == .info)
        #expect(config.appleAppID == nil && config.playIntegrity == nil && config.deviceCheck == nil)
        #expect(config.routes.map(\.path) == ["/v1/generate", "/v1/tutor/{deckId}/{cardId}"])
        #expect(config.routes.map(\.feature) == ["generation", "tutor"])
        #expect(
            config.routes.allSatisfy {
                $0.mode == .monitor && $0.allowance == AllowancePolicy(firstDay: 14, laterDays: 9)
            }
        )
    }

    @Test func everySettingIsRead() throws {
        var values = Self.minimal.values
        values.merge(
            [
                "ATTESTGATE_ENV": "development", "DYNAMODB_ENDPOINT": "http://127.0.0.1:5000",
                "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
                "GATE_MODE": "enforce", "CHALLENGE_TTL_SECONDS": "120", "APPLE_TEAM_ID": "TEAM123456",
                "APPLE_BUNDLE_IDS": "com.example.a, com.example.b", "APP_ATTEST_ENVIRONMENT": "development",
                "APP_ATTEST_TRUST_ROOT": "/tmp/root.pem", "ANDROID_PACKAGE": "com.example.app",
                "ANDROID_CERT_SHA256": "\(Self.digestA),\(Self.digestB)", "GOOGLE_SERVICE_ACCOUNT_FILE": "/tmp/sa.json",
                "GOOGLE_TOKEN_ENDPOINT": "http://127.0.0.1:8444/token",
                "PLAY_INTEGRITY_ENDPOINT": "http://127.0.0.1:8444",
                "PLAY_DECODE_BUDGET_PER_DEVICE": "5", "PLAY_DECODE_DAILY_SOFT_CAP": "100", "DEVICECHECK_KEY_ID": "KEY",
                "DEVICECHECK_PRIVATE_KEY_FILE": "/tmp/dc.p8", "DEVICECHECK_ENDPOINT": "http://127.0.0.1:8444",
                "AI_DAILY_CALL_CEILING": "500", "BUDGET_TIMEZONE": "Asia/Tokyo", "PAID_CLAIM": "plan=paid",
                "UPSTREAM_AUTH_HEADER": "X-Api-Key", "LOG_LEVEL": "debug",
            ],
            uniquingKeysWith: { $1 }
        )
        values["UPSTREAM_API_KEY_SECRET_ARN"] = nil
        values["UPSTREAM_API_KEY_FILE"] = "/tmp/key"
        let config = try Configuration(environment: Environment(values))
        #expect(config.environment == .development)
        #expect(config.dynamoDBEndpoint == "http://127.0.0.1:5000")
        #expect(config.awsCredentials?.sessionToken == "token")
        #expect(config.gateMode == .enforce)
        #expect(config.challengeTTLSeconds == 120)
        #expect(config.appleAppID?.bundleIDs == ["com.example.a", "com.example.b"])
        #expect(config.appAttestEnvironment == .development)
        #expect(config.appAttestTrustRoot == "/tmp/root.pem")
        #expect(config.playIntegrity?.certificateSHA256 == [Self.digestA, Self.digestB])
        #expect(config.playIntegrity?.serviceAccount == .file("/tmp/sa.json"))
        #expect(config.playDecodeBudgetPerDevice == 5)
        #expect(config.playDecodeDailySoftCap == 100)
        #expect(config.deviceCheck?.privateKey == .file("/tmp/dc.p8"))
        #expect(config.deviceCheckEndpoint == "http://127.0.0.1:8444")
        #expect(config.aiDailyCallCeiling == 500)
        #expect(config.budgetTimeZone == "Asia/Tokyo")
        #expect(config.paidClaim == Configuration.PaidClaim(claim: "plan", value: "paid"))
        #expect(config.upstream.authHeader == "X-Api-Key")
        #expect(config.upstream.apiKey == .file("/tmp/key"))
        #expect(config.logLevel == .debug)
        #expect(config.routes.allSatisfy { $0.mode == .enforce })
    }

    @Test func missingSettingsAreAllNamed() {
        #expect(
            reasons(Environment([:])) == [
                "config.missing_setting TABLE_NAME", "config.missing_setting AWS_REGION",
                "config.missing_setting UPSTREAM_URL", "config.missing_setting UPSTREAM_API_KEY_SECRET_ARN",
            ]
        )
    }

    @Test(arguments: [
        ("APP_ATTEST_ENVIRONMENT", "development", "config.development_app_attest_in_production APP_ATTEST_ENVIRONMENT"),
        ("APP_ATTEST_TRUST_ROOT", "/tmp/root.pem", "config.trust_root_in_production APP_ATTEST_TRUST_ROOT"),
        ("ATTESTGATE_ENV", "staging", "config.invalid_value ATTESTGATE_ENV"),
        ("GATE_MODE", "ENFORCE!", "config.invalid_value GATE_MODE"),
        ("LOG_LEVEL", "loud", "config.invalid_value LOG_LEVEL"),
        ("AWS_LAMBDA_LOG_LEVEL", "WARN", "config.invalid_value AWS_LAMBDA_LOG_LEVEL"),
        ("DEBUG_TOKENS", "on", "config.development_only DEBUG_TOKENS"),
        ("DEBUG_TOKENS", "yes", "config.invalid_value DEBUG_TOKENS"),
        ("AWS_LAMBDA_LOG_LEVEL", "FATAL", "config.invalid_value AWS_LAMBDA_LOG_LEVEL"),
        ("AWS_LAMBDA_LOG_LEVEL", "chatty", "config.invalid_value AWS_LAMBDA_LOG_LEVEL"),
        ("CHALLENGE_TTL_SECONDS", "-5", "config.invalid_number CHALLENGE_TTL_SECONDS"),
        ("CHALLENGE_TTL_SECONDS", "1e3", "config.invalid_number CHALLENGE_TTL_SECONDS"),
        ("CHALLENGE_TTL_SECONDS", "999999", "config.invalid_number CHALLENGE_TTL_SECONDS"),
        ("AI_DAILY_CALL_CEILING", "ten", "config.invalid_number AI_DAILY_CALL_CEILING"),
        ("PLAY_DECODE_BUDGET_PER_DEVICE", " 30", "config.invalid_number PLAY_DECODE_BUDGET_PER_DEVICE"),
        ("BUDGET_TIMEZONE", "Mars/Olympus", "config.invalid_time_zone BUDGET_TIMEZONE"),
        ("PAID_CLAIM", "plan", "config.invalid_paid_claim PAID_CLAIM"),
        ("UPSTREAM_URL", "http://api.example.com", "config.invalid_url UPSTREAM_URL"),
        ("GOOGLE_TOKEN_ENDPOINT", "ftp://x/token", "config.invalid_url GOOGLE_TOKEN_ENDPOINT"),
        ("UPSTREAM_AUTH_HEADER", "X Api Key", "config.invalid_value UPSTREAM_AUTH_HEADER"),
        ("UPSTREAM_API_KEY_FILE", "/tmp/key", "config.conflicting_secret_sources UPSTREAM_API_KEY_SECRET_ARN"),
        ("APPLE_TEAM_ID", "TEAM", "config.incomplete_provider APPLE_TEAM_ID"),
        ("ANDROID_PACKAGE", "com.example", "config.incomplete_provider ANDROID_PACKAGE"),
        ("DEVICECHECK_KEY_ID", "KEY", "config.incomplete_provider DEVICECHECK_KEY_ID"),
        ("AWS_ACCESS_KEY_ID", "AKID", "config.incomplete_aws_credentials AWS_ACCESS_KEY_ID"),
        ("GATE_MODE", "enforce", "config.enforce_without_provider GATE_MODE"),
    ])
    func badOrContradictorySettingsAreNamed(variable: String, value: String, expected: String) {
        #expect(reasons(Self.minimal.with(variable, value)) == [expected])
    }

    /// `ROUTES_FILE`: the route table from a file (in the zip: relative to `LAMBDA_TASK_ROOT`), never with `ROUTES`.
    @Test func routesFromAFileInTheZip() throws {
        let table = #"[{"method":"POST","path":"/v1/summary","feature":"summary"}]"#
        var asked: [String] = []
        let config = try Configuration(
            environment: Self.minimal.with("ROUTES_FILE", "routes.json").with("LAMBDA_TASK_ROOT", "/var/task"),
            readFile: { path in
                asked.append(path)
                return .success(Array(table.utf8))
            }
        )
        #expect(asked == ["/var/task/routes.json"])
        #expect(config.routes.map(\.feature) == ["summary"])
        let both = problems(Self.minimal.with("ROUTES_FILE", "/etc/routes.json").with("ROUTES", table))
        #expect(both.contains { $0.variable == "ROUTES_FILE" && $0.detail.contains("not both") })
        do {
            _ = try Configuration(
                environment: Self.minimal.with("ROUTES_FILE", "/nowhere/routes.json"),
                readFile: { _ in .failure(SecretSourceError(.notFound)) }
            )
            Issue.record("an unreadable ROUTES_FILE was accepted")
        } catch {
            #expect(error.problems.map { "\($0.reason.slug) \($0.variable)" } == ["config.invalid_value ROUTES_FILE"])
        }
    }

    /// The ceilings' old setting names (`…_BUDGET`) are still read, noted as deprecated; both names at once is a
    /// contradiction.
    @Test func theCeilingsOldNamesAreReadWithADeprecation() throws {
        let old = try Configuration(
            environment: Self.minimal.with("AI_DAILY_CALL_BUDGET", "250").with("AI_DAILY_UNPROVEN_CALL_BUDGET", "20")
        )
        #expect(old.aiDailyCallCeiling == 250 && old.aiDailyUnprovenCallCeiling == 20)
        #expect(
            old.deprecatedSettings == [
                "AI_DAILY_CALL_BUDGET → AI_DAILY_CALL_CEILING",
                "AI_DAILY_UNPROVEN_CALL_BUDGET → AI_DAILY_UNPROVEN_CALL_CEILING",
            ]
        )
        let current = try Configuration(environment: Self.minimal.with("AI_DAILY_CALL_CEILING", "250"))
        #expect(current.aiDailyCallCeiling == 250 && current.deprecatedSettings.isEmpty)
        #expect(
            reasons(Self.minimal.with("AI_DAILY_CALL_CEILING", "1").with("AI_DAILY_CALL_BUDGET", "2"))
                == ["config.invalid_value AI_DAILY_CALL_BUDGET"]
        )
    }

    /// Debug tokens in production only with the explicit second setting.
    @Test func debugTokensInProductionNeedTheSecondSetting() throws {
        let config = try Configuration(
            environment: Self.minimal.with("DEBUG_TOKENS", "on").with("DEBUG_TOKENS_IN_PRODUCTION", "allow")
        )
        #expect(config.debugTokens)
        #expect(try Configuration(environment: Self.minimal).debugTokens == false)
    }

    /// Lambda's application log level (advanced logging controls) and its environment: the more severe of it and
    /// `LOG_LEVEL` is ours; Powertools' `service`, `function_name` and `function_memory_size` on every line.
    @Test func lambdasLogLevelAndNamesAreHonoured() throws {
        let lambda = Self.minimal.with("AWS_LAMBDA_FUNCTION_NAME", "attestgate-prod-guest")
            .with("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
        let plain = try Configuration(environment: lambda)
        #expect(plain.logMetadata["service"] == .string("attestgate"))
        #expect(plain.logMetadata["function_name"] == .string("attestgate-prod-guest"))
        #expect(plain.logMetadata["function_memory_size"] == .int(256))
        #expect(try Configuration(environment: lambda.with("AWS_LAMBDA_LOG_LEVEL", "TRACE")).logLevel == .info)
        #expect(
            try Configuration(environment: lambda.with("LOG_LEVEL", "debug").with("AWS_LAMBDA_LOG_LEVEL", "INFO"))
                .logLevel == .info
        )
        #expect(
            try Configuration(environment: lambda.with("LOG_LEVEL", "warn").with("AWS_LAMBDA_LOG_LEVEL", "DEBUG"))
                .logLevel == .warning
        )
        #expect(
            try Configuration(environment: lambda.with("POWERTOOLS_SERVICE_NAME", "tutor-app")).logMetadata["service"]
                == .string("tutor-app")
        )
    }

    /// SHA-256 digests of "a" and "b", base64url as Play Integrity reports them.
    static let digestA = "ypeBEsobvcr6wjGzmiPcTaeG7_gUfE5yuYB3ha_uSLs"
    static let digestB = "PiPoFgA5WUoziU9lZOGxNIu9egCI1CxKy3PurtWcAJ0"

    /// A SHA-1 fingerprint copied from Play Console (20 bytes), in any spelling, or a value that is no
    /// digest at all is named, not silently never matched.
    @Test(arguments: [
        "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01",
        "abcdef0123456789abcdef0123456789abcdef01",
        "q83vASNFZ4mrze8BI0VniavN7wE",
        "AbC",
    ])
    func aDigestThatIsNotSHA256InAndroidCertSHA256IsNamed(_ digest: String) {
        #expect(
            reasons(Self.minimal.with("ANDROID_CERT_SHA256", "\(Self.digestA),\(digest)"))
                .contains("config.invalid_value ANDROID_CERT_SHA256")
        )
    }

    @Test func developmentAcceptsDevelopmentKeysAndATrustRoot() throws {
        let env = Self.minimal.with("ATTESTGATE_ENV", "development").with("APP_ATTEST_ENVIRONMENT", "development")
            .with("APP_ATTEST_TRUST_ROOT", "/tmp/root.pem")
        #expect(try Configuration(environment: env).appAttestTrustRoot == "/tmp/root.pem")
    }

    @Test func emptyValuesCountAsUnset() throws {
        let config = try Configuration(environment: Self.minimal.with("GATE_MODE", "").with("DYNAMODB_ENDPOINT", ""))
        #expect(config.gateMode == .monitor)
        #expect(config.dynamoDBEndpoint == nil)
    }
}

@Suite struct RoutesSettingTests {
    func routes(_ json: String, gateMode: String? = nil) throws -> [MeteredRoute] {
        let env = ConfigurationTests.minimal.with("ROUTES", json).with("GATE_MODE", gateMode)
            .with("APPLE_TEAM_ID", "TEAM123456").with("APPLE_BUNDLE_IDS", "com.example.app")
        return try Configuration(environment: env).routes
    }

    func problem(_ json: String) -> String? {
        do {
            _ = try routes(json)
            return nil
        } catch let error as ConfigurationError {
            #expect(error.problems.allSatisfy { $0.reason == .invalidRoutes && $0.variable == "ROUTES" })
            return error.problems.map(\.detail).joined(separator: "; ")
        } catch {
            return "unexpected \(error)"
        }
    }

    /// The unproven pool needs its sub-ceiling and the environment's ceiling it is counted in.
    @Test func anUnprovenPoolNeedsItsSubCeilingAndTheEnvironmentsCeiling() throws {
        let route =
            #"[{"method":"POST","path":"/a","feature":"a","unproven":{"allowance":{"firstDay":2,"laterDays":1}}}]"#
        let base = ConfigurationTests.minimal.with("ROUTES", route).with("APPLE_TEAM_ID", "TEAM123456")
            .with("APPLE_BUNDLE_IDS", "com.example.app")
        func details(_ env: Environment) -> String {
            do {
                _ = try Configuration(environment: env)
                return ""
            } catch {
                return error.problems.map(\.detail).joined(separator: "; ")
            }
        }
        #expect(details(base.with("AI_DAILY_CALL_CEILING", "100")).contains("the pool needs a sub-ceiling"))
        #expect(details(base.with("AI_DAILY_UNPROVEN_CALL_CEILING", "10")).contains("the environment has no ceiling"))
        #expect(
            details(base.with("AI_DAILY_CALL_CEILING", "100").with("AI_DAILY_UNPROVEN_COST_CEILING_USD", "1"))
                .contains("needs AI_DAILY_COST_CEILING_USD")
        )
        let config = try Configuration(
            environment: base.with("AI_DAILY_CALL_CEILING", "100").with("AI_DAILY_UNPROVEN_CALL_CEILING", "10")
        )
        #expect(config.hasUnprovenPool && config.routes.first?.unproven == AllowancePolicy(firstDay: 2, laterDays: 1))
    }

    @Test func theDesignExampleParsesWithEveryField() throws {
        let json = #"""
            [{"method":"POST","path":"/v1/generate","feature":"generation","allowance":{"firstDay":14,"laterDays":9},
              "mode":"enforce","binding":"request","onUnavailable":"allow","upstreamPath":"/generate","maxResponseBytes":65536},
             {"method":"POST","path":"/v1/tutor/{deckId}/{cardId}","feature":"tutor","upstreamPath":"/tutor",
              "binding":"challenge","onUnavailable":"deny","allowance":{"firstDay":3,"laterDays":1},
              "requireStrongIntegrity":true}]
            """#
        let parsed = try routes(json, gateMode: "off")
        #expect(parsed.count == 2)
        #expect(
            parsed[0]
                == MeteredRoute(
                    method: "POST",
                    path: "/v1/generate",
                    feature: "generation",
                    mode: .enforce,
                    upstreamPath: "/generate"
                )
        )
        #expect(parsed[1].mode == .off)  // GATE_MODE for routes without their own
        #expect(parsed[1].binding == .challenge)
        #expect(parsed[1].onUnavailable == .deny)
        #expect(parsed[1].allowance == AllowancePolicy(firstDay: 3, laterDays: 1))
        #expect(parsed[1].requireStrongIntegrity)
        #expect(parsed[1].maxResponseBytes == 65_536)
    }

    /// `maxDeviceActivity`: LEVEL_3 unless a route says otherwise; shown by `attestgate config check`.
    @Test func maxDeviceActivityDefaultsToLevelThreeAndIsShownInTheSummary() throws {
        let json = #"""
            [{"method":"POST","path":"/a","feature":"a"},
             {"method":"POST","path":"/b","feature":"b","maxDeviceActivity":"LEVEL_1"},
             {"method":"POST","path":"/c","feature":"c","maxDeviceActivity":"LEVEL_4"}]
            """#
        let env = ConfigurationTests.minimal.with("ROUTES", json)
            .with("APPLE_TEAM_ID", "TEAM123456").with("APPLE_BUNDLE_IDS", "com.example.app")
        let summary = try Configuration(environment: env).summary
        let levels = (summary["routes"]?.arrayValue ?? []).map { $0["maxDeviceActivity"] }
        #expect(levels == [.string("LEVEL_3"), .string("LEVEL_1"), .string("LEVEL_4")])
    }

    /// `repeatAllowance` (none by default) and `onUnknownDevice` (`repeat` by default), shown by the summary.
    @Test func repeatAllowanceAndOnUnknownDeviceDefaultToNoneAndRepeatAndAreShownInTheSummary() throws {
        let json = #"""
            [{"method":"POST","path":"/a","feature":"a"},
             {"method":"POST","path":"/b","feature":"b","repeatAllowance":{"firstDay":2,"laterDays":1},
              "onUnknownDevice":"first"}]
            """#
        let parsed = try routes(json)
        #expect(
            parsed.map(\.repeatAllowance) == [
                AllowancePolicy(firstDay: 0, laterDays: 0), .init(firstDay: 2, laterDays: 1),
            ]
        )
        #expect(parsed.map(\.onUnknownDevice) == [.repeat, .first])
        let env = ConfigurationTests.minimal.with("ROUTES", json)
            .with("APPLE_TEAM_ID", "TEAM123456").with("APPLE_BUNDLE_IDS", "com.example.app")
        let summary = try Configuration(environment: env).summary
        let shown = (summary["routes"]?.arrayValue ?? []).map { [$0["repeatAllowance"], $0["onUnknownDevice"]] }
        #expect(
            shown == [
                [.object(["firstDay": .int(0), "laterDays": .int(0)]), .string("repeat")],
                [.object(["firstDay": .int(2), "laterDays": .int(1)]), .string("first")],
            ]
        )
    }

    @Test func upstreamPathDefaultsToThePathWhenItHasNoParameters() throws {
        #expect(try routes(#"[{"method":"PUT","path":"/v2/x","feature":"x"}]"#).first?.upstreamPath == "/v2/x")
    }

    @Test(arguments: [
        ("{}", "not a JSON list"),
        ("[]", "empty list"),
        ("[1]", "route 0: not an object"),
        (#"[{"method":"POST","path":"/a","feature":"a","maxResponseByte":5}]"#, "unknown field maxResponseByte"),
        (#"[{"method":"FETCH","path":"/a","feature":"a"}]"#, "method must be"),
        (#"[{"method":"POST","path":"a","feature":"a"}]"#, "path must be"),
        (#"[{"method":"POST","path":"/a","feature":"Has Space"}]"#, "feature must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","mode":"strict"}]"#, "mode must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","binding":"none"}]"#, "binding must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","onUnavailable":"maybe"}]"#, "onUnavailable must be"),
        (
            #"[{"method":"POST","path":"/a","feature":"a","allowance":{"firstDay":-1,"laterDays":2}}]"#,
            "allowance must be"
        ),
        (#"[{"method":"POST","path":"/a","feature":"a","allowance":{"firstDay":1}}]"#, "allowance must be"),
        (
            #"[{"method":"POST","path":"/a","feature":"a","repeatAllowance":{"firstDay":1,"laterDays":-2}}]"#,
            "repeatAllowance must be"
        ),
        (#"[{"method":"POST","path":"/a","feature":"a","repeatAllowance":3}]"#, "repeatAllowance must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","onUnknownDevice":"deny"}]"#, "onUnknownDevice must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","onUnknownDevice":true}]"#, "onUnknownDevice must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","unproven":{"firstDay":1,"laterDays":1}}]"#, "unproven must be"),
        (
            #"[{"method":"POST","path":"/a","feature":"a","unproven":{"allowance":{"firstDay":1},"x":1}}]"#,
            "unproven must be"
        ),
        (#"[{"method":"POST","path":"/a","feature":"a","maxResponseBytes":0}]"#, "maxResponseBytes must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","maxResponseBytes":99999999}]"#, "maxResponseBytes must be"),
        (#"[{"method":"POST","path":"/a/{b}","feature":"a"}]"#, "upstreamPath is required"),
        (
            #"[{"method":"POST","path":"/a","feature":"a","maxDeviceActivity":"UNEVALUATED"}]"#,
            "maxDeviceActivity must be"
        ),
        (#"[{"method":"POST","path":"/a","feature":"a","maxDeviceActivity":"LEVEL_5"}]"#, "maxDeviceActivity must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","maxDeviceActivity":3}]"#, "maxDeviceActivity must be"),
        (#"[{"method":"POST","path":"/a","feature":"a","upstreamPath":"x?y"}]"#, "upstreamPath must be"),
        (#"[{"method":"POST","path":"/v1/attest/keys","feature":"a"}]"#, "served by the app itself"),
        (
            #"[{"method":"POST","path":"/a","feature":"a"},{"method":"POST","path":"/a","feature":"b"}]"#,
            "appears twice"
        ),
    ])
    func badRoutesAreNamed(json: String, fragment: String) {
        let detail = problem(json)
        #expect(detail?.contains(fragment) == true, "\(detail ?? "accepted")")
    }
}
