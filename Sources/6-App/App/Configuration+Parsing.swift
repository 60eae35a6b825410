package import AttestCore
internal import CivilTime
internal import DeviceCheck
internal import Dialects
internal import Gate
internal import HTTPClient
internal import PlayIntegrity

extension Configuration {
    /// Reads and validates every setting.
    /// - Throws: `ConfigurationError` listing every problem found.
    /// - Parameter readFile: reads `ROUTES_FILE` (a bounded local read; tests pass their own).
    package init(
        environment env: Environment,
        readFile: (String) -> Result<[UInt8], SecretSourceError> = { FileSecretSource.read($0, maxBytes: 256 * 1024) }
    ) throws(ConfigurationError) {
        var reader = SettingsReader(env)
        self.init()
        environment = reader.choice("ATTESTGATE_ENV", default: .production)
        tableName = reader.required("TABLE_NAME") ?? ""
        dynamoDBEndpoint = reader.url("DYNAMODB_ENDPOINT")
        awsRegion = reader.required("AWS_REGION") ?? ""
        awsCredentials = reader.credentials()
        gateMode = reader.choice("GATE_MODE", default: .monitor)
        challengeTTLSeconds = reader.number("CHALLENGE_TTL_SECONDS", default: 300, range: 30...3600)

        if let team = env["APPLE_TEAM_ID"], let bundles = reader.list("APPLE_BUNDLE_IDS") {
            appleAppID = AppleAppID(teamID: team, bundleIDs: bundles)
        } else if env["APPLE_TEAM_ID"] != nil || env["APPLE_BUNDLE_IDS"] != nil {
            reader.problem(.incompleteProvider, "APPLE_TEAM_ID", "APPLE_TEAM_ID and APPLE_BUNDLE_IDS go together")
        }
        appAttestEnvironment = reader.choice("APP_ATTEST_ENVIRONMENT", default: .production)
        appAttestTrustRoot = env["APP_ATTEST_TRUST_ROOT"]

        let serviceAccount = reader.secret("GOOGLE_SERVICE_ACCOUNT")
        let certificates = reader.list("ANDROID_CERT_SHA256")
        // Play Integrity reports a SHA-256 digest: anything else (a SHA-1 fingerprint, a typo) could never
        // match, and would reject every Android call instead of failing at start.
        for digest in certificates ?? [] {
            let bytes = CertificateDigest.normalized(digest).flatMap { Bytes.fromBase64URL($0) }
            guard bytes?.count != 32 else { continue }
            reader.problem(
                .invalidValue,
                "ANDROID_CERT_SHA256",
                "each digest must be SHA-256 (32 bytes: colon-separated hex as Play Console shows it, hex, "
                    + "or base64 / base64url as Play Integrity reports it), not SHA-1"
            )
        }
        if let package = env["ANDROID_PACKAGE"], let certificates, let serviceAccount {
            playIntegrity = PlayIntegritySettings(
                packageName: package,
                certificateSHA256: certificates,
                serviceAccount: serviceAccount
            )
        } else if env["ANDROID_PACKAGE"] != nil || env["ANDROID_CERT_SHA256"] != nil || serviceAccount != nil {
            reader.problem(
                .incompleteProvider,
                "ANDROID_PACKAGE",
                "Play Integrity needs ANDROID_PACKAGE, ANDROID_CERT_SHA256 and a service account"
            )
        }
        googleTokenEndpoint = reader.url("GOOGLE_TOKEN_ENDPOINT") ?? googleTokenEndpoint
        playIntegrityEndpoint = reader.url("PLAY_INTEGRITY_ENDPOINT") ?? playIntegrityEndpoint
        playDecodeBudgetPerDevice = reader.number("PLAY_DECODE_BUDGET_PER_DEVICE", default: 30, range: 0...1000)
        playDecodeDailySoftCap = reader.number("PLAY_DECODE_DAILY_SOFT_CAP", default: 9000, range: 0...10_000_000)
        playDeviceRecall = reader.choice(
            "PLAY_DEVICE_RECALL",
            default: false,
            parse: { ["on": true, "off": false][$0] }
        )
        if playDeviceRecall && playIntegrity == nil {
            reader.problem(
                .incompleteProvider,
                "PLAY_DEVICE_RECALL",
                "device recall needs Play Integrity (ANDROID_PACKAGE, ANDROID_CERT_SHA256 and a service account)"
            )
        }

        let deviceCheckKey = reader.secret("DEVICECHECK_PRIVATE_KEY")
        if let keyID = env["DEVICECHECK_KEY_ID"], let deviceCheckKey {
            deviceCheck = DeviceCheckSettings(keyID: keyID, privateKey: deviceCheckKey)
            if appleAppID == nil {
                reader.problem(.incompleteProvider, "DEVICECHECK_KEY_ID", "DeviceCheck needs APPLE_TEAM_ID")
            }
        } else if env["DEVICECHECK_KEY_ID"] != nil || deviceCheckKey != nil {
            reader.problem(
                .incompleteProvider,
                "DEVICECHECK_KEY_ID",
                "DEVICECHECK_KEY_ID and its private key go together"
            )
        }
        deviceCheckEndpoint = reader.url("DEVICECHECK_ENDPOINT") ?? deviceCheckEndpoint
        deviceCheckBudgetPerDevice = reader.number("DEVICECHECK_BUDGET_PER_DEVICE", default: 30, range: 0...1000)
        riskMetricMax = reader.number("RISK_METRIC_MAX", default: 5, range: 0...1000)
        appAttestReceiptEndpoint =
            reader.url("APP_ATTEST_RECEIPT_ENDPOINT")
            ?? (appAttestEnvironment == .production
                ? ReceiptExchangeConfiguration.productionEndpoint : ReceiptExchangeConfiguration.developmentEndpoint)
        deviceMarks = reader.choice("DEVICE_MARKS", default: false, parse: { ["on": true, "off": false][$0] })
        deviceMarkMonths = reader.number("DEVICE_MARK_MONTHS", default: 3, range: 1...120)
        if deviceMarks && deviceCheck == nil {
            reader.problem(
                .deviceMarksWithoutDeviceCheck,
                "DEVICE_MARKS",
                "DEVICE_MARKS=on needs the DeviceCheck key (DEVICECHECK_KEY_ID and DEVICECHECK_PRIVATE_KEY_SECRET_ARN "
                    + "or _FILE) and App Attest (APPLE_TEAM_ID, APPLE_BUNDLE_IDS)"
            )
        }

        // The ceilings' settings were once named `…_BUDGET`: the old names are still read, with a deprecation line
        // (docs/architecture.md, "Glossary"), and both at once is a contradiction.
        aiDailyCallCeiling = reader.number(
            reader.renamed("AI_DAILY_CALL_CEILING", old: "AI_DAILY_CALL_BUDGET"),
            default: 0,
            range: 0...100_000_000
        )
        aiDailyCostCeilingMicros = reader.dollars(
            reader.renamed("AI_DAILY_COST_CEILING_USD", old: "AI_DAILY_COST_BUDGET_USD")
        )
        aiCeilingShards = reader.number("AI_CEILING_SHARDS", default: 1, range: 1...256)
        aiDailyUnprovenCallCeiling = reader.number(
            reader.renamed("AI_DAILY_UNPROVEN_CALL_CEILING", old: "AI_DAILY_UNPROVEN_CALL_BUDGET"),
            default: 0,
            range: 0...100_000_000
        )
        aiDailyUnprovenCostCeilingMicros = reader.dollars(
            reader.renamed("AI_DAILY_UNPROVEN_COST_CEILING_USD", old: "AI_DAILY_UNPROVEN_COST_BUDGET_USD")
        )
        deprecatedSettings = reader.deprecated
        if let zone = env["BUDGET_TIMEZONE"] {
            budgetTimeZone = zone
            do {
                budgetCalendar = try LocalCalendar(zone: zone)
            } catch {
                reader.problem(.invalidTimeZone, "BUDGET_TIMEZONE", "not an IANA zone or POSIX TZ rule")
            }
        }
        paidClaim = reader.paidClaim()

        let upstreamURL = reader.required("UPSTREAM_URL").flatMap { reader.url("UPSTREAM_URL", value: $0) }
        let upstreamKey = reader.secret("UPSTREAM_API_KEY")
        if upstreamKey == nil && !reader.problems.contains(where: { $0.variable.hasPrefix("UPSTREAM_API_KEY") }) {
            reader.problem(.missingSetting, "UPSTREAM_API_KEY_SECRET_ARN", "set it or UPSTREAM_API_KEY_FILE")
        }
        upstream = Upstream(
            baseURL: upstreamURL ?? "",
            apiKey: upstreamKey ?? .file(""),
            authHeader: reader.headerName("UPSTREAM_AUTH_HEADER") ?? "Authorization"
        )
        if let path = env["ROUTES_FILE"] {
            // A route table too large for Lambda's 4 KB environment, shipped in the zip (docs/deploy.md): a
            // relative path is the function's code directory's.
            let full = path.hasPrefix("/") ? path : (env["LAMBDA_TASK_ROOT"] ?? ".") + "/" + path
            if env["ROUTES"] != nil {
                reader.problem(.invalidValue, "ROUTES_FILE", "set ROUTES or ROUTES_FILE, not both")
            }
            switch readFile(full) {
            case .success(let bytes):
                routes = reader.routes(String(decoding: bytes, as: UTF8.self), gateMode: gateMode)
            case .failure(let error):
                reader.problem(
                    .invalidValue,
                    "ROUTES_FILE",
                    "cannot read \(full): \(error.reason.slug) (at most 256 KiB)"
                )
            }
        } else if let text = env["ROUTES"] {
            routes = reader.routes(text, gateMode: gateMode)
        } else {
            routes = Self.defaultRoutes.map { route in
                var route = route
                route.mode = gateMode
                return route
            }
        }
        logLevel = reader.choice("LOG_LEVEL", default: .info, parse: Logger.Level.init(name:))
        // Lambda's own application log-level filter (advanced logging controls, JSON log format): lines below it
        // are dropped by Lambda, so the more severe of the two is ours, and one above INFO would drop the
        // decision lines every metric and alarm is made from (docs/operations.md, "Log lines").
        if let text = env["AWS_LAMBDA_LOG_LEVEL"] {
            if let lambdaLevel = Logger.Level(name: text), lambdaLevel <= .info {
                logLevel = max(logLevel, lambdaLevel)
            } else {
                reader.problem(
                    .invalidValue,
                    "AWS_LAMBDA_LOG_LEVEL",
                    "the function's application log level must be INFO, DEBUG or TRACE: Lambda drops the INFO decision lines below it"
                )
            }
        }
        logMetadata = ["service": .string(String((env["POWERTOOLS_SERVICE_NAME"] ?? "attestgate").prefix(128)))]
        if let name = env["AWS_LAMBDA_FUNCTION_NAME"] {
            logMetadata["function_name"] = .string(String(name.prefix(140)))
        }
        if let memory = env["AWS_LAMBDA_FUNCTION_MEMORY_SIZE"].flatMap({ Int64($0) }) {
            logMetadata["function_memory_size"] = .int(memory)
        }
        allowSeedRelease = reader.choice("ALLOW_SEED_RELEASE", default: false, parse: { Bool($0) })
        debugTokens = reader.choice("DEBUG_TOKENS", default: false, parse: { ["on": true, "off": false][$0] })
        let debugInProduction = reader.choice(
            "DEBUG_TOKENS_IN_PRODUCTION",
            default: false,
            parse: { ["allow": true, "refuse": false][$0] }
        )

        // Contradictions between settings.
        if environment == .production, debugTokens, !debugInProduction {
            // A token that leaks from a CI system would open production's free tier: never by accident.
            reader.problem(
                .developmentOnly,
                "DEBUG_TOKENS",
                "debug tokens in production need the explicit DEBUG_TOKENS_IN_PRODUCTION=allow"
            )
        }
        if environment == .production && appAttestEnvironment == .development {
            reader.problem(
                .developmentAppAttestInProduction,
                "APP_ATTEST_ENVIRONMENT",
                "development App Attest keys are never accepted with ATTESTGATE_ENV=production"
            )
        }
        if environment == .production && appAttestTrustRoot != nil {
            reader.problem(
                .trustRootInProduction,
                "APP_ATTEST_TRUST_ROOT",
                "a replacement trust root is refused with ATTESTGATE_ENV=production"
            )
        }
        if environment == .production, !appAttestReceiptEndpoint.hasPrefix("https://") {
            reader.problem(
                .developmentOnly,
                "APP_ATTEST_RECEIPT_ENDPOINT",
                "a plain-http receipt exchange endpoint is refused with ATTESTGATE_ENV=production"
            )
        }
        if environment == .production, !allowSeedRelease, let route = routes.first(where: { $0.release == .seed }) {
            reader.problem(
                .seedReleaseInProduction,
                "ROUTES",
                "route \(route.feature) releases timed-out calls (release: seed); with ATTESTGATE_ENV=production "
                    + "that needs ALLOW_SEED_RELEASE=true"
            )
        }
        if aiDailyCostCeilingMicros > 0 {
            for route in routes {
                // The money ceiling holds only if every call's worst case is known before it is made.
                if !route.dialect.isKnown {
                    reader.problem(
                        .unboundedRoute,
                        "AI_DAILY_COST_CEILING_USD",
                        "route \(route.feature) has the opaque dialect: its cost cannot be bounded"
                    )
                } else if route.models == nil || route.prices.isEmpty {
                    reader.problem(
                        .unboundedRoute,
                        "AI_DAILY_COST_CEILING_USD",
                        "route \(route.feature) needs models and a price for each"
                    )
                }
            }
        }
        checkUnprovenPool(&reader)
        if deviceCheck == nil, let route = routes.first(where: { $0.deviceCheckFallback }) {
            reader.problem(
                .invalidRoutes,
                "ROUTES",
                "route \(route.feature) sets deviceCheckFallback but DeviceCheck is not configured (DEVICECHECK_KEY_ID)"
            )
        }
        if !hasAttestationProvider, let route = routes.first(where: { $0.mode == .enforce }) {
            reader.problem(
                .enforceWithoutProvider,
                route.mode == gateMode ? "GATE_MODE" : "ROUTES",
                "route \(route.feature) enforces attestation but no provider is configured"
            )
        }
        if !reader.problems.isEmpty { throw ConfigurationError(reader.problems) }
    }
}

/// Reads settings one by one, collecting problems instead of stopping at the first.
struct SettingsReader {
    let env: Environment
    var problems: [ConfigurationError.Problem] = []
    /// Old setting names still read (`old → new`), for the deprecation line.
    var deprecated: [String] = []

    /// The name to read a renamed setting from: `name`, or `old` when only the old name is set (noted as
    /// deprecated). Both at once is a problem: which one the operator meant is not ours to guess.
    mutating func renamed(_ name: String, old: String) -> String {
        guard env[old] != nil else { return name }
        if env[name] != nil {
            problem(.invalidValue, old, "\(old) is the old name of \(name): set only \(name)")
            return name
        }
        deprecated.append("\(old) → \(name)")
        return old
    }

    init(_ env: Environment) { self.env = env }

    mutating func problem(_ reason: ConfigurationError.Reason, _ variable: String, _ detail: String) {
        problems.append(ConfigurationError.Problem(reason, variable, detail))
    }

    mutating func required(_ name: String) -> String? {
        guard let value = env[name] else {
            problem(.missingSetting, name, "required")
            return nil
        }
        return value
    }

    mutating func choice<T: RawRepresentable<String>>(_ name: String, default fallback: T) -> T {
        choice(name, default: fallback, parse: T.init(rawValue:))
    }

    mutating func choice<T>(_ name: String, default fallback: T, parse: (String) -> T?) -> T {
        guard let text = env[name] else { return fallback }
        guard let value = parse(text) else {
            problem(.invalidValue, name, "unknown value")
            return fallback
        }
        return value
    }

    /// A decimal integer within `range` (digits only: no sign, spaces or exponent).
    mutating func number(_ name: String, default fallback: Int, range: ClosedRange<Int>) -> Int {
        guard let text = env[name] else { return fallback }
        guard text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text),
            range.contains(value)
        else {
            problem(.invalidNumber, name, "expected a whole number in \(range.lowerBound)...\(range.upperBound)")
            return fallback
        }
        return value
    }

    /// A non-negative amount of US dollars (at most six decimals) as micro-dollars; 0 when unset.
    mutating func dollars(_ name: String) -> Int64 {
        guard let text = env[name] else { return 0 }
        guard text.utf8.count <= 20, let price = TokenPrice(usd: text) else {
            problem(.invalidNumber, name, "expected US dollars, e.g. 25 or 12.50 (at most 6 decimals)")
            return 0
        }
        return price.microUSDPerMTok
    }

    /// Comma-separated, trimmed, non-empty items; nil when unset.
    mutating func list(_ name: String) -> [String]? {
        guard let text = env[name] else { return nil }
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: " ") }.filter { !$0.isEmpty }
        guard !items.isEmpty else {
            problem(.invalidValue, name, "empty list")
            return nil
        }
        return items
    }

    /// An https URL, or http on loopback (local runs), without query or fragment.
    mutating func url(_ name: String, value: String? = nil) -> String? {
        guard let text = value ?? env[name] else { return nil }
        guard (try? URLPolicy.check(text)) != nil, !text.contains("?"), !text.contains("#") else {
            problem(.invalidURL, name, "expected https:// (or http:// to loopback) without query")
            return nil
        }
        return text
    }

    /// `NAME_SECRET_ARN` or `NAME_FILE`, never both.
    mutating func secret(_ name: String) -> SecretLocation? {
        let arn = env[name + "_SECRET_ARN"]
        let file = env[name + "_FILE"]
        switch (arn, file) {
        case (let arn?, nil):
            guard arn.hasPrefix("arn:") else {
                problem(.invalidValue, name + "_SECRET_ARN", "not an ARN")
                return nil
            }
            return .secretARN(arn)
        case (nil, let file?): return .file(file)
        case (nil, nil): return nil
        case (_?, _?):
            problem(.conflictingSecretSources, name + "_SECRET_ARN", "set \(name)_SECRET_ARN or \(name)_FILE, not both")
            return nil
        }
    }

    mutating func credentials() -> Configuration.AWSCredentials? {
        switch (env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"]) {
        case (let id?, let secret?):
            return Configuration.AWSCredentials(
                accessKeyID: id,
                secretAccessKey: secret,
                sessionToken: env["AWS_SESSION_TOKEN"]
            )
        case (nil, nil):
            if env["AWS_SESSION_TOKEN"] != nil {
                problem(.incompleteCredentials, "AWS_SESSION_TOKEN", "a session token needs an access key")
            }
            return nil
        default:
            problem(
                .incompleteCredentials,
                "AWS_ACCESS_KEY_ID",
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together"
            )
            return nil
        }
    }

    mutating func paidClaim() -> Configuration.PaidClaim? {
        guard let text = env["PAID_CLAIM"] else { return nil }
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            problem(.invalidPaidClaim, "PAID_CLAIM", "expected claim=value")
            return nil
        }
        return Configuration.PaidClaim(claim: String(parts[0]), value: String(parts[1]))
    }

    /// An HTTP header name (RFC 9110 token characters).
    mutating func headerName(_ name: String) -> String? {
        guard let text = env[name] else { return nil }
        let token = "!#$%&'*+-.^_`|~"
        guard text.utf8.count <= 64,
            text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || token.contains($0)) })
        else {
            problem(.invalidValue, name, "not an HTTP header name")
            return nil
        }
        return text
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

extension Configuration {
    /// The unproven pool (docs/gate.md, "The unproven pool") is served from its own sub-ceiling, counted in
    /// the environment's ceilings too: a route with `unproven` needs both, and a money sub-ceiling needs the
    /// money ceiling (the worst case it reserves is computed for that one).
    fileprivate func checkUnprovenPool(_ reader: inout SettingsReader) {
        if aiDailyUnprovenCostCeilingMicros > 0, aiDailyCostCeilingMicros == 0 {
            reader.problem(
                .invalidRoutes,
                "AI_DAILY_UNPROVEN_COST_CEILING_USD",
                "a money sub-ceiling for the unproven pool needs AI_DAILY_COST_CEILING_USD"
            )
        }
        guard let route = routes.first(where: { $0.unproven != nil }) else { return }
        if aiDailyUnprovenCallCeiling == 0, aiDailyUnprovenCostCeilingMicros == 0 {
            reader.problem(
                .invalidRoutes,
                "ROUTES",
                "route \(route.feature) has an unproven pool but AI_DAILY_UNPROVEN_CALL_CEILING and "
                    + "AI_DAILY_UNPROVEN_COST_CEILING_USD are both 0: the pool needs a sub-ceiling"
            )
        }
        if aiDailyCallCeiling == 0, aiDailyCostCeilingMicros == 0 {
            reader.problem(
                .invalidRoutes,
                "ROUTES",
                "route \(route.feature) has an unproven pool but the environment has no ceiling "
                    + "(AI_DAILY_CALL_CEILING or AI_DAILY_COST_CEILING_USD): the pool is counted in it"
            )
        }
    }

    /// Whether any route serves calls from the unproven pool.
    package var hasUnprovenPool: Bool {
        routes.contains { $0.unproven != nil }
            && (aiDailyUnprovenCallCeiling > 0 || aiDailyUnprovenCostCeilingMicros > 0)
    }
}
