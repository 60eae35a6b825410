package import AttestCore
package import CivilTime
package import Gate

/// Every setting of docs/api.md section 5, read once at cold start from an `Environment`.
///
/// `init(environment:)` validates everything and throws one `ConfigurationError` listing every
/// problem (missing settings, bad values, contradictions such as development App Attest keys in
/// production). Secrets are only located here (`SecretLocation`); reading them is left to their users.
package struct Configuration: Sendable {
    /// `ATTESTGATE_ENV` and `APP_ATTEST_ENVIRONMENT`.
    package enum Deployment: String, Sendable, Hashable {
        case production, development
    }

    package struct AWSCredentials: Sendable, Hashable {
        package var accessKeyID: String
        package var secretAccessKey: String
        package var sessionToken: String?
    }

    package struct AppleAppID: Sendable, Hashable {
        package var teamID: String
        package var bundleIDs: [String]
    }

    package struct PlayIntegritySettings: Sendable, Hashable {
        package var packageName: String
        package var certificateSHA256: [String]
        package var serviceAccount: SecretLocation
    }

    package struct DeviceCheckSettings: Sendable, Hashable {
        package var keyID: String
        package var privateKey: SecretLocation
    }

    /// `PAID_CLAIM=claim=value`.
    package struct PaidClaim: Sendable, Hashable {
        package var claim: String
        package var value: String

        package init(claim: String, value: String) {
            self.claim = claim
            self.value = value
        }
    }

    package struct Upstream: Sendable, Hashable {
        package var baseURL: String
        package var apiKey: SecretLocation
        /// The header carrying the key; `Authorization` sends `Bearer <key>`.
        package var authHeader: String
    }

    package var environment: Deployment = .production
    package var tableName: String = ""
    package var dynamoDBEndpoint: String?
    package var awsRegion: String = ""
    package var awsCredentials: AWSCredentials?
    package var gateMode: GateMode = .monitor
    package var challengeTTLSeconds: Int = 300
    /// nil: App Attest is off.
    package var appleAppID: AppleAppID?
    package var appAttestEnvironment: Deployment = .production
    /// A PEM file replacing Apple's root (development only).
    package var appAttestTrustRoot: String?
    /// nil: Play Integrity is off.
    package var playIntegrity: PlayIntegritySettings?
    package var googleTokenEndpoint = "https://oauth2.googleapis.com/token"
    package var playIntegrityEndpoint = "https://playintegrity.googleapis.com"
    package var playDecodeBudgetPerDevice = 30
    package var playDecodeDailySoftCap = 9000
    /// `PLAY_DEVICE_RECALL=on`: Android device IDs are tiered by Play Integrity's device recall bits
    /// (docs/playintegrity.md "Device recall"); needs Play Integrity.
    package var playDeviceRecall = false
    /// nil: DeviceCheck is off (it is off unless a key is set).
    package var deviceCheck: DeviceCheckSettings?
    package var deviceCheckEndpoint = "https://api.devicecheck.apple.com"
    /// `DEVICECHECK_BUDGET_PER_DEVICE`: DeviceCheck queries per device ID and UTC day.
    package var deviceCheckBudgetPerDevice = 30
    /// `RISK_METRIC_MAX`: an App Attest fraud-risk metric above it makes the device ID `repeat`.
    package var riskMetricMax = 5
    /// `APP_ATTEST_RECEIPT_ENDPOINT`: Apple's receipt exchange host (default by `APP_ATTEST_ENVIRONMENT`).
    package var appAttestReceiptEndpoint = "https://data.appattest.apple.com"
    /// `DEVICE_MARKS=on`: App Attest key registrations tier their device ID by DeviceCheck's two bits
    /// (docs/appattest.md "Device marks"); needs `deviceCheck`.
    package var deviceMarks = false
    /// `DEVICE_MARK_MONTHS`: a mark older than this many whole months counts as cleared.
    package var deviceMarkMonths = 3
    /// Unpaid upstream calls per day; 0 means no ceiling.
    package var aiDailyCallCeiling = 0
    /// `AI_DAILY_COST_CEILING_USD` in micro-dollars; 0 means no money ceiling.
    package var aiDailyCostCeilingMicros: Int64 = 0
    /// `AI_CEILING_SHARDS`: how many table rows each day's ceiling is split over (docs/dynamodb.md,
    /// "Capacity"); both limits are split exactly.
    package var aiCeilingShards = 1
    /// `AI_DAILY_UNPROVEN_CALL_CEILING` / `AI_DAILY_UNPROVEN_COST_CEILING_USD` (micro-dollars): the unproven
    /// pool's sub-ceiling (docs/gate.md, "The unproven pool"); 0 means none.
    package var aiDailyUnprovenCallCeiling = 0
    package var aiDailyUnprovenCostCeilingMicros: Int64 = 0
    package var budgetTimeZone = "UTC"
    package var budgetCalendar = LocalCalendar.utc
    package var paidClaim: PaidClaim?
    package var upstream = Upstream(baseURL: "", apiKey: .file(""), authHeader: "Authorization")
    package var routes: [MeteredRoute] = Configuration.defaultRoutes
    package var logLevel: Logger.Level = .info
    /// Settings read under a deprecated name (`AI_DAILY_CALL_BUDGET → AI_DAILY_CALL_CEILING`): logged once at
    /// cold start and shown by `attestgate config check`.
    package var deprecatedSettings: [String] = []
    /// `DEBUG_TOKENS=on`: `X-Debug-Token` is layer-1 proof `debug` (docs/clients.md, "Debug tokens").
    package var debugTokens = false
    /// Powertools' keys of every line, from Lambda's environment: `service` (`POWERTOOLS_SERVICE_NAME`,
    /// default `attestgate`), `function_name`, `function_memory_size`.
    package var logMetadata: [String: JSONValue] = [:]
    /// `ALLOW_SEED_RELEASE=true`: a route may use `release: seed` in production.
    package var allowSeedRelease = false

    /// The two default routes of docs/api.md §2, with the default allowances (docs/api.md §5).
    package static let defaultRoutes = [
        MeteredRoute(method: "POST", path: "/v1/generate", feature: "generation", upstreamPath: "/generate"),
        MeteredRoute(method: "POST", path: "/v1/tutor/{deckId}/{cardId}", feature: "tutor", upstreamPath: "/tutor"),
    ]

    /// Paths the app itself serves; a metered route may not take them.
    package static let reservedPaths = ["/v1/attest/challenge", "/v1/attest/keys"]

    /// Whether any attestation provider is configured.
    package var hasAttestationProvider: Bool { appleAppID != nil || playIntegrity != nil || deviceCheck != nil }
}
