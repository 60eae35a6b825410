import Foundation

@testable import AttestGateClient

/// One app install against `FakeGateServer`: a fake enclave, an in-memory Keychain, a test clock and an
/// event log, and clients built over them (a second client over the same store is the next launch).
struct Harness {
    let clock = TestClock()
    let enclave = FakeEnclave()
    let server: FakeGateServer
    let store = InMemorySecureStore()
    let events = EventLog()
    let deviceID = UUID().uuidString.lowercased()

    init() { server = FakeGateServer(clock: clock) }

    func client(
        retryPolicy: RetryPolicy = RetryPolicy(),
        deviceCheckOnCalls: DeviceCheckUse = .whenAppAttestIsUnavailable,
        transport: (any HTTPTransport)? = nil
    ) -> AttestGate {
        var configuration = Configuration(
            baseURL: "https://gate.test",
            retryPolicy: retryPolicy,
            deviceCheckOnCalls: deviceCheckOnCalls,
            onEvent: events.handler
        )
        #if DEBUG
        configuration.debugToken = nil  // whatever the test process was started with
        #endif
        let platform = Platform(
            appAttest: enclave,
            deviceCheck: FakeDeviceCheck(enclave: enclave),
            store: store,
            transport: transport ?? server,
            clock: clock,
            jitter: { 0.5 }
        )
        return AttestGate(configuration: configuration, deviceID: deviceID, platform: platform)
    }
}

/// The body's words, for readable expectations.
let generateBody = Array(#"{"text":"Mitochondria make ATP.","cards":2}"#.utf8)

extension Outcome {
    /// `served` with this status.
    func isServed(_ status: Int = 200) -> Bool {
        if case .served(let answer) = self { return answer.status == status }
        return false
    }
}
