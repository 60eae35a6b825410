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
    static func deviceCheck(
        _ configuration: Configuration,
        table: GateTable,
        transport: any HTTPTransport,
        random: any RandomSource,
        logger: Logger
    ) async throws -> (any FallbackDeviceCheck)? {
        guard let settings = configuration.deviceCheck, let apple = configuration.appleAppID else { return nil }
        let source = try settings.privateKey.source(configuration: configuration, transport: transport)
        let key: P256PrivateKey
        do {
            key = try await DeviceCheckJWT.loadKey(from: source)
        } catch {
            throw StartupError(.secretUnreadable, detail: "DEVICECHECK_PRIVATE_KEY is not a P-256 .p8 key")
        }
        let client = DeviceCheckClient(
            configuration: DeviceCheckConfiguration(
                teamID: apple.teamID,
                keyID: settings.keyID,
                endpoint: configuration.deviceCheckEndpoint
            ),
            key: key,
            transport: transport,
            budget: DynamoDeviceCheckBudget(
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
