#if canImport(DeviceCheck) && canImport(Security) && (os(iOS) || os(macOS))

extension Platform {
    /// A device's platform: `DCAppAttestService`, `DCDevice`, the Keychain, `URLSession`, the system clock.
    /// Not compiled on Linux.
    public static func live(keychainService: String = "dev.attestgate.client", accessGroup: String? = nil) -> Platform {
        Platform(
            appAttest: DeviceCheckAppAttest(),
            deviceCheck: DeviceCheckTokens(),
            store: KeychainStore(service: keychainService, accessGroup: accessGroup),
            transport: URLSessionTransport()
        )
    }
}

extension AttestGate {
    /// A client on this device: its device ID from the Keychain (made on first launch), App Attest, DeviceCheck
    /// and `URLSession`. Not compiled on Linux.
    /// - Throws: `ClientError` (`client.store_failed`) when the Keychain cannot keep the device ID.
    public static func live(configuration: Configuration, platform: Platform = .live()) async throws -> AttestGate {
        let deviceID = try await DeviceIdentity.loadOrCreate(in: platform.store)
        return AttestGate(configuration: configuration, deviceID: deviceID, platform: platform)
    }
}
#endif
