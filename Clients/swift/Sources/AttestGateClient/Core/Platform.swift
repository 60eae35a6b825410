/// The platform seams a client runs on: App Attest, DeviceCheck, the secure store, HTTP and time. On a
/// device `Platform.live` (Sources/AttestGateClient/Apple); in tests, fakes and the simulated Secure Enclave.
public struct Platform: Sendable {
    public var appAttest: any AppAttestService
    public var deviceCheck: any DeviceCheckTokenProvider
    public var store: any SecureStore
    public var transport: any HTTPTransport
    public var clock: any ClientClock
    /// A number in [0, 1) for the retries' jitter.
    public var jitter: @Sendable () -> Double

    public init(
        appAttest: any AppAttestService,
        deviceCheck: any DeviceCheckTokenProvider = NoDeviceCheck(),
        store: any SecureStore,
        transport: any HTTPTransport,
        clock: any ClientClock = SystemClientClock(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.appAttest = appAttest
        self.deviceCheck = deviceCheck
        self.store = store
        self.transport = transport
        self.clock = clock
        self.jitter = jitter
    }
}
