package import AttestCore
internal import Dialects
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
                "release": .string(route.release.rawValue),
                "releaseStatuses": .array(route.releaseStatuses.sorted().map { int($0) }),
                "maxRequestBytes": int(route.maxRequestBytes),
                "upstreamTimeoutMs": route.upstreamTimeout.map { .int(milliseconds($0)) }
                    ?? .string("remaining time - margin"),
                "dialect": .string(route.dialect.rawValue),
                "models": route.models.map { .array($0.sorted().map(JSONValue.string)) } ?? .null,
                "maxOutputTokens": route.maxOutputTokens.map { int($0) } ?? .null,
                "maxInputTokens": route.maxInputTokens.map { int($0) } ?? .null,
                "prices": .object(
                    route.prices.mapValues { price in
                        // Each class at the price a settle uses: the route's, the dialect's rule, or unpriced.
                        var fields: [String: JSONValue] = [
                            "inputMicroUSDPerMTok": .int(price.input.microUSDPerMTok),
                            "outputMicroUSDPerMTok": .int(price.output.microUSDPerMTok),
                        ]
                        var classes: [String: JSONValue] = [:]
                        for kind in TokenClass.allCases {
                            classes[kind.rawValue] =
                                route.dialect.classPrice(kind, price).map { .int($0.microUSDPerMTok) }
                                ?? .string("unpriced: keeps the reservation")
                        }
                        fields["classesMicroUSDPerMTok"] = .object(classes)
                        return .object(fields)
                    }
                ),
                "worstCase": worstCase(route),
                "deviceCheckFallback": .bool(route.deviceCheckFallback),
                "maxDeviceActivity": .string(route.maxDeviceActivity.verdict),
                "repeatAllowance": .object([
                    "firstDay": int(route.repeatAllowance.firstDay), "laterDays": int(route.repeatAllowance.laterDays),
                ]),
                "onUnknownDevice": .string(route.onUnknownDevice.rawValue),
                "unproven": route.unproven.map {
                    .object(["firstDay": int($0.firstDay), "laterDays": int($0.laterDays)])
                } ?? .null,
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
                    "receiptEndpoint": .string(appAttestReceiptEndpoint), "riskMetricMax": int(riskMetricMax),
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
                    "deviceRecall": .string(playDeviceRecall ? "on" : "off"),
                ])
            } ?? .null,
            "deviceCheck": deviceCheck.map { check in
                .object([
                    "keyId": .string(check.keyID), "privateKey": .string(check.privateKey.summary),
                    "endpoint": .string(deviceCheckEndpoint),
                    "budgetPerDevice": int(deviceCheckBudgetPerDevice),
                ])
            } ?? .null,
            "deviceMarks": .object([
                "enabled": .bool(deviceMarks), "markMonths": int(deviceMarkMonths),
            ]),
            "aiDailyCallCeiling": int(aiDailyCallCeiling),
            "aiDailyCostBudgetMicroUSD": .int(aiDailyCostCeilingMicros),
            "aiCeilingShards": int(aiCeilingShards),
            "aiDailyUnprovenCallCeiling": int(aiDailyUnprovenCallCeiling),
            "aiDailyUnprovenCostBudgetMicroUSD": .int(aiDailyUnprovenCostCeilingMicros),
            "budgetTimeZone": .string(budgetTimeZone),
            "paidClaim": paidClaim.map { .string("\($0.claim)=\($0.value)") } ?? .null,
            "upstream": .object([
                "url": .string(upstream.baseURL), "apiKey": .string(upstream.apiKey.summary),
                "authHeader": .string(upstream.authHeader),
            ]),
            "routes": .array(routes),
            "logLevel": .string(logLevel.name),
            "deprecatedSettings": .array(deprecatedSettings.map(JSONValue.string)),
            "debugTokens": .bool(debugTokens),
        ])
    }
}

extension Configuration {
    /// The most one call of `route` can reserve (a body of `maxRequestBytes`, or `maxInputTokens` when
    /// larger, and `maxOutputTokens` at the dearest model's prices), and how many such calls the day's
    /// budget holds.
    func worstCase(_ route: MeteredRoute) -> JSONValue {
        guard route.dialect.isKnown, let output = route.maxOutputTokens, !route.prices.isEmpty else {
            return .string("unbounded (opaque dialect or no prices)")
        }
        let input = max(route.maxInputTokens ?? 0, route.maxRequestBytes)
        let models = route.models.map { $0.sorted() } ?? route.prices.keys.sorted()
        var dearest: (model: String, micros: Int64)?
        for model in models {
            guard let price = route.prices[model] else { continue }
            // An Anthropic request that writes the prompt cache counts its input twice, unless the route prices
            // the writes (they are then in the dearest input price; Dialects).
            let pricesWrites = price.classes[.cacheWrite] != nil || price.classes[.cacheWrite1h] != nil
            let weight = route.dialect == .anthropicMessages && !pricesWrites ? 2 : 1
            let micros = Cost.worstCase(inputTokens: input * weight, maxOutputTokens: output, price: price)
            if dearest == nil || micros > dearest!.micros { dearest = (model, micros) }
        }
        guard let dearest else { return .string("unbounded (no price for an allowed model)") }
        var fields: [String: JSONValue] = [
            "model": .string(dearest.model), "inputTokens": .int(Int64(input)), "outputTokens": .int(Int64(output)),
            "microUSD": .int(dearest.micros),
        ]
        if aiDailyCostCeilingMicros > 0 {
            fields["callsPerDailyBudget"] = .int(dearest.micros == 0 ? -1 : aiDailyCostCeilingMicros / dearest.micros)
        }
        return .object(fields)
    }
}

private func milliseconds(_ duration: Duration) -> Int64 {
    duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
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
