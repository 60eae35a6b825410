/// An App Attest key as stored for a device ID.
package struct StoredAppAttestKey: Sendable, Hashable {
    package let keyId: [UInt8]
    /// DER SubjectPublicKeyInfo of the P-256 key.
    package let publicKey: [UInt8]
    /// The counter of the last accepted assertion (0 right after attestation).
    package let counter: UInt32
    /// `production` or `development`.
    package let environment: String

    package init(keyId: [UInt8], publicKey: [UInt8], counter: UInt32, environment: String) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.counter = counter
        self.environment = environment
    }
}

/// How a verified attestation was bound to a device ID (docs/api.md §2, key registration).
package enum KeyBinding: String, Sendable, Hashable {
    /// The device ID had no key.
    case bound
    /// The same key again (a resend, or a client that registered twice).
    case reRegistered = "re_registered"
    /// A different key replaced the old one (reinstall, restore, new device): logged at warning.
    case rebound
}

/// App Attest keys per device ID, plus the key-owner records that stop one genuine key from serving
/// many minted IDs.
package protocol AppAttestKeyStore: Sendable {
    /// The device's key and, read in the same request, its first-seen day.
    /// - Throws: `StoreError`.
    func lookup(deviceID: String) async throws -> (key: StoredAppAttestKey?, firstSeen: String?)

    /// Binds a verified key to `deviceID`, unless the key already belongs to another device ID.
    /// - Returns: the binding, or nil when the key is owned by another device ID.
    /// - Throws: `StoreError`.
    func bind(deviceID: String, key: StoredAppAttestKey, receipt: [UInt8]) async throws -> KeyBinding?

    /// Stores `counter` for `deviceID` if its key is still `keyId` and `counter` is greater than the
    /// stored one, in one conditional write (two Lambdas with the same assertion cannot both pass).
    /// - Returns: false when the condition failed (replay, or the key was replaced meanwhile).
    /// - Throws: `StoreError`.
    func advanceCounter(deviceID: String, keyId: [UInt8], to counter: UInt32) async throws -> Bool
}
