internal import AWSJSON
internal import AppAttest
internal import AttestCore
internal import CivilTime
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import Gate
internal import HTTPClient
internal import PlayIntegrity

/// The three layers, built once at cold start from the configuration.
struct GateComponents: Sendable {
    let meteredCall: MeteredCall
    let challenges: ChallengeEndpoint
    /// nil when App Attest is not configured (the route then does not exist).
    let keyRegistration: KeyRegistration?
}

extension Application {
    /// Builds every store, verifier and layer (docs/api.md sections 1, 5, 6).
    /// - Throws: `StartupError` for a secret or trust root that cannot be read.
    static func makeGate(
        configuration: Configuration,
        environment: Environment,
        transport: any HTTPTransport,
        clock: any WallClock,
        logger: Logger
    ) async throws -> GateComponents {
        let random = SecureRandom()
        let aws = try AWSEnvironment(environment.values)
        let dynamo = DynamoDBClient(
            configuration: DynamoDBClient.configuration(aws),
            transport: transport,
            clock: clock,
            random: random
        )
        let table = GateTable(client: dynamo, table: Table(name: configuration.tableName), random: random)

        let challengeStore = DynamoChallengeStore(
            table: table,
            ttlSeconds: configuration.challengeTTLSeconds,
            calendar: configuration.budgetCalendar
        )
        let keyStore = DynamoAppAttestKeyStore(table: table)

        var appAttest: AppAttestVerifier?
        if let apple = configuration.appleAppID {
            appAttest = AppAttestVerifier(
                teamId: apple.teamID,
                bundleIds: apple.bundleIDs,
                environment: configuration.appAttestEnvironment == .production ? .production : .development,
                trust: try trust(configuration)
            )
        }

        var play: PlayIntegrityVerifier?
        var recallTiering: PlayRecallTiering?
        if let settings = configuration.playIntegrity {
            let tokens = GoogleAccessTokenProvider(
                secret: try settings.serviceAccount.source(configuration: configuration, transport: transport),
                transport: transport,
                configuration: .init(tokenEndpoint: configuration.googleTokenEndpoint),
                logger: logger
            )
            let playConfiguration = PlayIntegrityConfiguration(
                packageName: settings.packageName,
                certificateDigests: settings.certificateSHA256,
                endpoint: configuration.playIntegrityEndpoint,
                refuseTestingResponses: configuration.environment == .production
            )
            if configuration.playDeviceRecall {
                // The recall write shares the decode's access token and endpoint (docs/playintegrity.md).
                recallTiering = PlayRecallTiering(
                    writer: GoogleDeviceRecallWriter(
                        configuration: playConfiguration,
                        accessTokens: tokens,
                        transport: transport,
                        logger: logger
                    ),
                    tiers: DynamoDeviceTierStore(table: table),
                    logger: logger
                )
            }
            play = PlayIntegrityVerifier(
                configuration: playConfiguration,
                accessTokens: tokens,
                transport: transport,
                budget: DynamoDeviceDailyBudget.playDecodes(
                    table: table,
                    perDevice: configuration.playDecodeBudgetPerDevice,
                    calendar: .utc
                ),
                quota: SoftCapDecodeQuotaGuard(
                    store: DynamoDecodeQuotaStore(table: table),
                    softCap: configuration.playDecodeDailySoftCap,
                    logger: logger
                ),
                logger: logger
            )
        }

        let deviceCheckKey = try await deviceCheckKey(configuration, transport: transport)
        let marks = deviceMarks(
            configuration,
            key: deviceCheckKey,
            table: table,
            transport: transport,
            random: random,
            logger: logger
        )
        let risk = receiptRisk(
            configuration,
            key: deviceCheckKey,
            verifier: appAttest,
            table: table,
            marks: marks,
            transport: transport,
            logger: logger
        )
        let evidence = LayerOneEvidence(
            challenges: challengeStore,
            keys: keyStore,
            appAttest: appAttest,
            play: play,
            deviceCheck: deviceCheck(
                configuration,
                key: deviceCheckKey,
                table: table,
                transport: transport,
                random: random,
                logger: logger
            ),
            risk: risk?.refresh,
            logger: logger
        )

        let key = try await SecretReader.read(
            configuration.upstream.apiKey,
            name: "UPSTREAM_API_KEY",
            configuration: configuration,
            transport: transport
        )
        let upstream = HTTPUpstream(
            baseURL: configuration.upstream.baseURL,
            authHeader: configuration.upstream.authHeader,
            key: String(decoding: key, as: UTF8.self),
            transport: transport
        )
        let allowanceStore = DynamoAllowanceStore(table: table)
        var ceilingGuard = CeilingGuard(
            store: DynamoCeilingStore(table: table, shards: configuration.aiCeilingShards),
            dailyLimit: configuration.aiDailyCallCeiling,
            dailyCostLimitMicros: configuration.aiDailyCostCeilingMicros,
            calendar: configuration.budgetCalendar
        )
        if configuration.hasUnprovenPool {
            ceilingGuard.unproven = UnprovenPool(
                CeilingGuard(
                    store: DynamoCeilingStore.unprovenPool(table: table),
                    dailyLimit: configuration.aiDailyUnprovenCallCeiling,
                    dailyCostLimitMicros: configuration.aiDailyUnprovenCostCeilingMicros,
                    calendar: configuration.budgetCalendar
                )
            )
        }
        var meteredCall = MeteredCall(
            environment: configuration.environment.rawValue,
            evidence: evidence,
            profiles: challengeStore,
            challenges: challengeStore,
            allowances: AllowanceMeter(store: allowanceStore, calendar: configuration.budgetCalendar),
            ceilingGuard: ceilingGuard,
            upstream: upstream
        )
        // Android device IDs are tiered by device recall (PLAY_DEVICE_RECALL=on; needs Play Integrity).
        meteredCall.tiering.recall = recallTiering != nil
        meteredCall.recallTiering = recallTiering
        // DEVICE_MARKS=on: key registrations record the tier, metered calls of attested keys meter by it.
        meteredCall.tiering.marks = configuration.deviceMarks
        // A `first` expires with its mark (DEVICE_MARK_MONTHS); a call carrying a DeviceCheck token renews it.
        meteredCall.tiering.markMonths = configuration.deviceMarkMonths
        if configuration.debugTokens {
            meteredCall.debugTokens = DebugTokenCheck(store: DynamoDebugTokenStore(table: table))
        }
        meteredCall.markRenewal = marks.map {
            MarkRenewal(marks: $0, tiers: DynamoDeviceTierStore(table: table), calendar: configuration.budgetCalendar)
        }
        let tiering = marks.map {
            RegistrationTiering(
                marks: $0,
                tiers: DynamoDeviceTierStore(table: table),
                calendar: configuration.budgetCalendar,
                markMonths: configuration.deviceMarkMonths
            )
        }
        return GateComponents(
            meteredCall: meteredCall,
            challenges: ChallengeEndpoint(challenges: challengeStore),
            keyRegistration: appAttest.map {
                KeyRegistration(
                    challenges: challengeStore,
                    keys: keyStore,
                    verifier: $0,
                    tiering: tiering,
                    environment: configuration.environment.rawValue,
                    risk: risk?.registration
                )
            }
        )
    }

    /// Apple's pinned roots, or (development only: configuration refuses it in production) a PEM file.
    private static func trust(_ configuration: Configuration) throws(StartupError) -> AppAttestTrust {
        guard let path = configuration.appAttestTrustRoot else { return .apple }
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)),
            let root = try? Certificate(pemRepresentation: String(decoding: data, as: UTF8.self))
        else {
            throw StartupError(.secretUnreadable, detail: "APP_ATTEST_TRUST_ROOT is not a readable PEM certificate")
        }
        return .synthetic(root: root)
    }
}
