internal import AttestCore
internal import CivilTime
internal import Crypto
internal import DeviceCheck
internal import FoundationEssentials
internal import Gate
internal import HTTPClient

extension Application {
    /// DeviceCheck is off unless a key is configured; off, it abstains (never `unavailable`). Configured,
    /// it still abstains on every route that did not opt in (`deviceCheckFallback`, LayerOneEvidence).
    /// The DeviceCheck `.p8` (`DEVICECHECK_PRIVATE_KEY_*`), read once at cold start for every use of it
    /// (the fallback, the two bits); nil when DeviceCheck is not configured.
    static func deviceCheckKey(
        _ configuration: Configuration,
        transport: any HTTPTransport
    ) async throws -> P256PrivateKey? {
        guard let settings = configuration.deviceCheck, configuration.appleAppID != nil else { return nil }
        let source = try settings.privateKey.source(configuration: configuration, transport: transport)
        do {
            return try await DeviceCheckJWT.loadKey(from: source)
        } catch {
            throw StartupError(.secretUnreadable, detail: "DEVICECHECK_PRIVATE_KEY is not a P-256 .p8 key")
        }
    }

    static func deviceCheck(
        _ configuration: Configuration,
        key: P256PrivateKey?,
        table: GateTable,
        transport: any HTTPTransport,
        random: any RandomSource,
        logger: Logger
    ) -> (any FallbackDeviceCheck)? {
        guard let settings = configuration.deviceCheck, let apple = configuration.appleAppID, let key else {
            return nil
        }
        let client = DeviceCheckClient(
            configuration: DeviceCheckConfiguration(
                teamID: apple.teamID,
                keyID: settings.keyID,
                endpoint: configuration.deviceCheckEndpoint
            ),
            key: key,
            transport: transport,
            budget: DynamoDeviceDailyBudget.deviceCheckQueries(
                table: table,
                perDevice: configuration.deviceCheckBudgetPerDevice,
                calendar: .utc
            ),
            random: random,
            logger: logger
        )
        return DeviceCheckFallback(provider: DeviceCheckProvider(client: client))
    }
}

/// DeviceCheck as the gate's non-binding fallback.
struct DeviceCheckFallback: FallbackDeviceCheck {
    let provider: DeviceCheckProvider

    func check(token: String, deviceID: String, now: Date) async -> ProviderMerge.Answer {
        guard let result = await provider.check(token: token, deviceID: deviceID, now: now) else {
            return .rejected(GateReason.deviceCheckOff.slug)
        }
        return ProviderMerge.Answer(result)
    }
}
