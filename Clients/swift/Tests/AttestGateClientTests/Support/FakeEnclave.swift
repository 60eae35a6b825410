import Foundation

@testable import AttestGateClient

/// A Secure Enclave that follows Apple's documented rules without any cryptography, for unit tests: keys
/// attest once (`invalidKey` the second time), only attested keys assert, a reinstall forgets every key.
/// Its attestations and assertions are plain text that `FakeGateServer` checks (`attest|<key>|<hash hex>`,
/// `assert|<key>|<hash hex>|<counter>`). The stack tests use the real simulated enclave instead.
actor FakeEnclave: AppAttestService {
    struct Call: Sendable, Hashable {
        let operation: String
        let keyID: String
        let clientDataHash: [UInt8]
    }

    var supported = true
    var deviceCheckSupported = true
    private var keys: [String: (attested: Bool, counter: Int)] = [:]
    private var serial = 0
    /// `attestKey` answers `serverUnavailable` this many more times.
    var attestUnavailable = 0
    /// The next `generateAssertion` of these keys answers `invalidKey` (Apple rejected them).
    var rejected: Set<String> = []
    /// Every `generateAssertion` answers `invalidKey`.
    var rejectAll = false
    /// How long an assertion takes (to make parallel calls overlap if they can).
    var assertionDelay: UInt64 = 0
    private(set) var calls: [Call] = []
    private var inFlight: [String: Int] = [:]
    /// The most assertions one key had in flight at once.
    private(set) var maxConcurrentAssertions = 0
    private(set) var tokens = 0

    func set(supported: Bool, deviceCheck: Bool = true) {
        self.supported = supported
        deviceCheckSupported = deviceCheck
    }
    func set(attestUnavailable count: Int) { attestUnavailable = count }
    func set(assertionDelayNanoseconds delay: UInt64) { assertionDelay = delay }
    func reject(_ keyID: String) { rejected.insert(keyID) }
    func set(rejectAll: Bool) { self.rejectAll = rejectAll }
    /// A reinstall: App Attest keys do not survive it.
    func reinstall() { keys.removeAll() }
    var generatedKeys: Int { serial }

    func isSupported() async -> Bool { supported }

    func generateKey() async throws -> String {
        guard supported else { throw AppAttestError(.featureUnsupported) }
        serial += 1
        let keyID = Bytes.base64(SHA256.hash(Array("fake key \(serial) \(UUID())".utf8)))
        keys[keyID] = (false, 0)
        calls.append(Call(operation: "generateKey", keyID: keyID, clientDataHash: []))
        return keyID
    }

    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        calls.append(Call(operation: "attestKey", keyID: keyID, clientDataHash: clientDataHash))
        guard let key = keys[keyID], !key.attested else { throw AppAttestError(.invalidKey) }
        if attestUnavailable > 0 {
            attestUnavailable -= 1
            throw AppAttestError(.serverUnavailable)
        }
        keys[keyID] = (true, 0)
        return Array("attest|\(keyID)|\(Bytes.hex(clientDataHash))".utf8)
    }

    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        calls.append(Call(operation: "generateAssertion", keyID: keyID, clientDataHash: clientDataHash))
        inFlight[keyID, default: 0] += 1
        maxConcurrentAssertions = max(maxConcurrentAssertions, inFlight[keyID] ?? 0)
        defer { inFlight[keyID, default: 1] -= 1 }
        if assertionDelay > 0 { try? await Task.sleep(nanoseconds: assertionDelay) }
        guard let key = keys[keyID], key.attested, !rejected.contains(keyID), !rejectAll else {
            throw AppAttestError(.invalidKey)
        }
        keys[keyID] = (true, key.counter + 1)
        return Array("assert|\(keyID)|\(Bytes.hex(clientDataHash))|\(key.counter + 1)".utf8)
    }

    func generateToken() async throws -> [UInt8] {
        tokens += 1
        return Array("devicecheck-token-\(tokens)".utf8)
    }

    func operations(_ name: String) -> [Call] { calls.filter { $0.operation == name } }
}

/// `FakeEnclave` as a DeviceCheck provider that says whether it is supported (actors cannot conform twice to
/// `isSupported` with different answers).
struct FakeDeviceCheck: DeviceCheckTokenProvider {
    let enclave: FakeEnclave
    func isSupported() async -> Bool { await enclave.deviceCheckSupported }
    func generateToken() async throws -> [UInt8] { try await enclave.generateToken() }
}
