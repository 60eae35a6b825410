/// Where the client keeps what must outlive the process: the device ID and the App Attest key's record. On
/// a device, the Keychain (`KeychainStore`, Sources/AttestGateClient/Apple), whose items survive a reinstall
/// while App Attest keys do not: that is how a reinstall keeps its device ID and gets a new key.
///
/// Failures throw `ClientError` (`client.store_failed`); the client then carries on with what it holds in
/// memory, so a broken Keychain costs at worst a new key on the next launch, never a refused call.
public protocol SecureStore: Sendable {
    /// The value stored under `name`, nil when there is none.
    func read(_ name: String) async throws -> [UInt8]?
    /// Stores `value` under `name`, replacing any earlier value.
    func write(_ name: String, _ value: [UInt8]) async throws
    /// Removes `name` (no error when it is absent).
    func delete(_ name: String) async throws
}

/// A store in memory, for tests and for processes that keep nothing (a new key every launch).
public actor InMemorySecureStore: SecureStore {
    private var values: [String: [UInt8]] = [:]

    public init() {}

    public func read(_ name: String) throws -> [UInt8]? { values[name] }
    public func write(_ name: String, _ value: [UInt8]) throws { values[name] = value }
    public func delete(_ name: String) throws { values[name] = nil }
}
