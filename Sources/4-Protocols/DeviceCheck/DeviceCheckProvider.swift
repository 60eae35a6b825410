package import FoundationEssentials

/// DeviceCheck as a provider of the merge: switched off unless a key is configured.
///
/// Switched off, or asked without a token, it abstains (`nil`): never `unavailable`. Counted as "down", an
/// unconfigured DeviceCheck would let `X-Device-Check-Token: x` pass enforce mode (docs/playintegrity.md,
/// "Outcomes and the merge").
package struct DeviceCheckProvider: Sendable {
    private let client: DeviceCheckClient?

    /// A provider that always abstains (no `DEVICECHECK_KEY_ID` / key configured).
    package static let off = DeviceCheckProvider(client: nil)

    package init(client: DeviceCheckClient?) { self.client = client }

    /// True when a key is configured.
    package var isConfigured: Bool { client != nil }

    /// The provider's answer for the request's `X-Device-Check-Token`, or nil when it abstains.
    /// - Parameter deviceID: the validated `X-Device-ID`, whose daily budget a query to Apple spends.
    package func check(token: String?, deviceID: String, now: Date) async -> DeviceCheckResult? {
        guard let client, let token else { return nil }
        return await client.validate(deviceToken: token, deviceID: deviceID, now: now)
    }
}
