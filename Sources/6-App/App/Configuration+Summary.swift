package import AttestCore
internal import Gate
internal import PlayIntegrity

extension Configuration {
    /// The settings as JSON for `attestgate config check`: locations of secrets, never their values;
    /// for AWS credentials only whether they are set.
    package var summary: JSONValue {
        func string(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func int(_ value: Int) -> JSONValue { .int(Int64(value)) }
        let routes: [JSONValue] = routes.map { route in
            .object([
                "method": .string(route.method), "path": .string(route.path), "feature": .string(route.feature),
                "mode": .string(route.mode.rawValue), "binding": .string(route.binding.rawValue),
                "onUnavailable": .string(route.onUnavailable.rawValue),
                "allowance": .object([
                    "firstDay": int(route.allowance.firstDay), "laterDays": int(route.allowance.laterDays),
                ]),
                "upstreamPath": .string(route.upstreamPath), "maxResponseBytes": int(route.maxResponseBytes),
                "requireStrongIntegrity": .bool(route.requireStrongIntegrity),
                "maxDeviceActivity": .string(route.maxDeviceActivity.verdict),
            ])
        }
        return .object([
            "environment": .string(environment.rawValue),
            "tableName": .string(tableName),
            "dynamoDBEndpoint": string(dynamoDBEndpoint),
            "awsRegion": .string(awsRegion),
            "awsCredentials": .string(awsCredentials == nil ? "unset" : "set"),
            "gateMode": .string(gateMode.rawValue),
            "challengeTTLSeconds": int(challengeTTLSeconds),
            "appAttest": appleAppID.map { app in
                .object([
                    "teamId": .string(app.teamID), "bundleIds": .array(app.bundleIDs.map(JSONValue.string)),
                    "environment": .string(appAttestEnvironment.rawValue), "trustRoot": string(appAttestTrustRoot),
                ])
            } ?? .null,
            "playIntegrity": playIntegrity.map { play in
                .object([
                    "package": .string(play.packageName),
                    "certSHA256": .array(play.certificateSHA256.map(JSONValue.string)),
                    "serviceAccount": .string(play.serviceAccount.summary),
                    "tokenEndpoint": .string(googleTokenEndpoint), "endpoint": .string(playIntegrityEndpoint),
                    "decodeBudgetPerDevice": int(playDecodeBudgetPerDevice),
                    "decodeDailySoftCap": int(playDecodeDailySoftCap),
                ])
            } ?? .null,
            "deviceCheck": deviceCheck.map { check in
                .object([
                    "keyId": .string(check.keyID), "privateKey": .string(check.privateKey.summary),
                    "endpoint": .string(deviceCheckEndpoint),
                ])
            } ?? .null,
            "aiDailyCallBudget": int(aiDailyCallBudget),
            "budgetTimeZone": .string(budgetTimeZone),
            "paidClaim": paidClaim.map { .string("\($0.claim)=\($0.value)") } ?? .null,
            "upstream": .object([
                "url": .string(upstream.baseURL), "apiKey": .string(upstream.apiKey.summary),
                "authHeader": .string(upstream.authHeader),
            ]),
            "routes": .array(routes),
            "logLevel": .string(logLevel.name),
        ])
    }
}

extension ConfigurationError {
    /// The problems as JSON for `attestgate config check` and the init error.
    package var summary: JSONValue {
        .array(
            problems.map { problem in
                .object([
                    "error": .string(problem.reason.slug), "variable": .string(problem.variable),
                    "detail": .string(problem.detail),
                ])
            }
        )
    }
}
