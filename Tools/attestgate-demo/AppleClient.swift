internal import AttestGateClient
internal import FoundationEssentials
internal import SimulatedDevice

/// An iOS app, played by the shipped client library (`Clients/swift`, module `AttestGateClient`) on a
/// simulated iPhone: exactly what an app built with the library sends, with a software stand-in for the
/// Secure Enclave (`SimulatedEnclave`: Apple's formats, signed by a synthetic Apple-shaped CA the local
/// server trusts).
///
/// Real app ↔ this file:
/// - `AttestGate.live(configuration:)`                 → `AttestGate(configuration:deviceID:platform:)` below
/// - `DCAppAttestService` / `DCDevice`                  → `SimulatedEnclave` / `SimulatedDeviceCheck`
/// - the Keychain (device ID, key id)                  → `InMemorySecureStore` (it survives a `reinstall()`)
/// - `URLSession`                                       → `CurlClientTransport` (libcurl)
struct AppleClient {
    /// The UUID the app made once and keeps in the Keychain.
    let deviceID: String
    let device: SimulatedDevice
    let enclave: SimulatedEnclave
    let transport: CurlClientTransport
    let events: ClientEvents
    let gate: AttestGate

    init(deviceID: String, device: SimulatedDevice, baseURL: String) {
        self.deviceID = deviceID
        self.device = device
        enclave = SimulatedEnclave(device: device)
        transport = CurlClientTransport()
        events = ClientEvents()
        var configuration = Configuration(baseURL: baseURL, onEvent: events.handler)
        #if DEBUG
        configuration.debugToken = nil  // the demo plays App Attest, whatever the shell says
        #endif
        let platform = Platform(
            appAttest: enclave,
            deviceCheck: SimulatedDeviceCheck(device: device),
            store: InMemorySecureStore(),
            transport: transport
        )
        gate = AttestGate(configuration: configuration, deviceID: deviceID, platform: platform)
    }

    /// A reinstall: the app's App Attest keys are gone (keys do not survive it); the Keychain, with the
    /// device ID and the old key's id, stays. The next call finds the key invalid and registers a new one.
    func reinstall() async { await enclave.reinstall() }

    /// The first launch: the library makes, attests and registers the key (with a DeviceCheck token of the
    /// phone for the device marks), as `AttestGate.prepare()` does in an app.
    func registerKey() async -> Registration { await gate.prepare() }

    /// One metered call through the library: challenge (reused from the last answer), client data, assertion.
    func call(_ path: String, body: [UInt8]) async -> Outcome { await gate.post(path, body: body) }

    /// A streamed call: the events as an `AsyncSequence`.
    func stream(_ path: String, body: [UInt8]) async -> Outcome { await gate.stream("POST", path, body: body) }

    /// The last request the library sent to `path`, exactly as it went out.
    func lastRequest(to path: String) async -> TransportRequest? { await transport.sent.last(to: path) }
}
