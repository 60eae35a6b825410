import Foundation

@testable import AttestGateClient

/// One install of the app on the stack: its enclave process, its Keychain (in memory: it survives the
/// enclave's `reinstall`), the real `URLSessionTransport` wrapped to record what was sent, and its events.
struct StackInstall {
    let deviceID: String
    let enclave: ProcessEnclave
    let store = InMemorySecureStore()
    let transport = RecordingTransport()
    let events = EventLog()

    init(deviceID: String = LocalStack.newDeviceID()) throws {
        self.deviceID = deviceID
        enclave = try ProcessEnclave()
    }

    /// A client over this install (a second one is the next launch); `appAttest` replaces the enclave
    /// (probes, oracles).
    func client(
        front: String = LocalStack.front,
        appAttest: (any AppAttestService)? = nil,
        debugToken: String? = nil
    ) -> AttestGate {
        var configuration = Configuration(baseURL: front, onEvent: events.handler)
        #if DEBUG
        configuration.debugToken = debugToken
        #endif
        let platform = Platform(
            appAttest: appAttest ?? enclave,
            deviceCheck: enclave,
            store: store,
            transport: transport
        )
        return AttestGate(configuration: configuration, deviceID: deviceID, platform: platform)
    }

    /// The binding of the last key registration the client reported.
    var lastBinding: String? {
        events.events.reversed().lazy.compactMap { event -> String? in
            if case .keyRegistered(let binding) = event { return binding }
            return nil
        }.first
    }
}

/// `URLSessionTransport`, recording each request it sent and the status that came back.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: `exchanges` is only touched while holding `lock`.
    private let inner = URLSessionTransport()
    private let lock = NSLock()
    private var exchanges: [(request: TransportRequest, status: Int)] = []

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await inner.send(request)
        lock.withLock { exchanges.append((request, response.status)) }
        return response
    }

    /// The exchanges to URLs ending in `path`.
    func sent(to path: String) -> [(request: TransportRequest, status: Int)] {
        lock.withLock { exchanges.filter { $0.request.url.hasSuffix(path) } }
    }
}

/// An `AppAttestService` around another that counts the assertions each key has in flight (with a pause
/// inside, so calls that could overlap do): the proof that the client signs one at a time per key.
actor AssertionProbe: AppAttestService {
    let inner: any AppAttestService
    private var inFlight: [String: Int] = [:]
    private(set) var maxInFlight = 0
    private(set) var assertions = 0

    init(_ inner: any AppAttestService) { self.inner = inner }

    func isSupported() async -> Bool { await inner.isSupported() }
    func generateKey() async throws -> String { try await inner.generateKey() }
    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try await inner.attestKey(keyID, clientDataHash: clientDataHash)
    }

    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        inFlight[keyID, default: 0] += 1
        assertions += 1
        maxInFlight = max(maxInFlight, inFlight[keyID] ?? 0)
        defer { inFlight[keyID, default: 1] -= 1 }
        try await Task.sleep(nanoseconds: 30_000_000)
        return try await inner.generateAssertion(keyID, clientDataHash: clientDataHash)
    }
}

/// An `AppAttestService` that signs a fixed `clientDataHash` whatever it is asked to sign: the oracle of the
/// known-answer test (the server then accepts a call only if its own hash of what it received is that value).
struct FixedHashSigner: AppAttestService {
    let inner: any AppAttestService
    let clientDataHash: [UInt8]

    func isSupported() async -> Bool { await inner.isSupported() }
    func generateKey() async throws -> String { try await inner.generateKey() }
    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try await inner.attestKey(keyID, clientDataHash: clientDataHash)
    }
    func generateAssertion(_ keyID: String, clientDataHash _: [UInt8]) async throws -> [UInt8] {
        try await inner.generateAssertion(keyID, clientDataHash: clientDataHash)
    }
}
