package import FoundationEssentials

/// An App Attest key as stored for a device ID.
package struct StoredAppAttestKey: Sendable, Hashable {
    package let keyId: [UInt8]
    /// DER SubjectPublicKeyInfo of the P-256 key.
    package let publicKey: [UInt8]
    /// The counter of the last accepted assertion (0 right after attestation).
    package let counter: UInt32
    /// `production` or `development`: an assertion is accepted only in the environment its key was attested in.
    package let environment: String
    /// `TEAMID.bundle.id` the key was attested for; nil on rows written before App IDs were stored (those
    /// are checked against the configured App IDs, and pinned by their next accepted assertion).
    package let appId: String?
    /// The key's receipt and fraud-risk metric (docs/appattest.md, "The fraud-risk metric").
    package var risk: StoredRisk
    /// An operator blocked this key (`attestgate device block --key`): the row's `blocked_key_id` names it, so a
    /// new key bound to the device ID is not blocked by it.
    package var blocked: Bool = false

    package init(
        keyId: [UInt8],
        publicKey: [UInt8],
        counter: UInt32,
        environment: String,
        appId: String? = nil,
        risk: StoredRisk = StoredRisk()
    ) {
        self.keyId = keyId
        self.publicKey = publicKey
        self.counter = counter
        self.environment = environment
        self.appId = appId
        self.risk = risk
    }
}

/// The receipt state on a key's `ATTEST_KEY` row: the latest receipt (the ATTEST one until Apple returns a
/// RECEIPT), whether our check refused it, and what the last verified exchange said.
package struct StoredRisk: Sendable, Hashable {
    /// `receipt`: the ATTEST receipt, or the last RECEIPT Apple returned (nil on rows without one).
    package var receipt: [UInt8]?
    /// `receipt_unverified`: our check refused the ATTEST receipt and Apple has not returned a verified one.
    package var unverified: Bool
    /// `risk_metric`: the last verified receipt's fraud-risk metric.
    package var metric: Int?
    /// `risk_not_before`: before this, Apple answers an exchange with 304.
    package var notBefore: Date?
    /// `risk_day`: the UTC day (YYYY-MM-DD) of the last exchange that Apple answered.
    package var exchangedDay: String?

    package init(
        receipt: [UInt8]? = nil,
        unverified: Bool = false,
        metric: Int? = nil,
        notBefore: Date? = nil,
        exchangedDay: String? = nil
    ) {
        self.receipt = receipt
        self.unverified = unverified
        self.metric = metric
        self.notBefore = notBefore
        self.exchangedDay = exchangedDay
    }
}

/// What the conditional counter write found (`AppAttestKeyStore.advanceCounter`).
package enum CounterAdvance: Sendable, Hashable {
    /// Our counter was greater than the stored one and is now stored.
    case advanced
    /// The row still holds this key, with a counter at or above ours: another genuine call of the same
    /// key landed first (out of order, or between our write and its resend). Not a replay when the call
    /// has just spent its own single-use challenge (docs/gate.md, "Counter races").
    case behind
    /// The row holds another key (rebound meanwhile) or none.
    case keyReplaced

    /// Whether a call that has just spent its own single-use challenge is accepted: unless the key changed.
    package var acceptedOnSpentChallenge: Bool { self != .keyReplaced }
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
    /// The device's key and, read in the same request, its profile (first-seen day and tier; nil when the
    /// device ID has no `PROFILE` row yet).
    /// - Throws: `StoreError`.
    func lookup(deviceID: String) async throws -> (key: StoredAppAttestKey?, profile: DeviceProfile?)

    /// Binds a verified key to `deviceID`, unless the key already belongs to another device ID. The same
    /// key again (`re_registered`) keeps its stored counter: resetting it would let the key's old
    /// assertions count again.
    /// - Returns: the binding, or nil when the key is owned by another device ID.
    /// - Throws: `StoreError`.
    func bind(deviceID: String, key: StoredAppAttestKey, receipt: [UInt8]) async throws -> KeyBinding?

    /// Stores `counter` for `deviceID` if its key is still `keyId` and `counter` is greater than the
    /// stored one, in one conditional write, and pins `appId` on a row that has none yet.
    /// - Returns: what the write found (a refusal tells `behind` from `keyReplaced` by the row it returns).
    /// - Throws: `StoreError`.
    func advanceCounter(
        deviceID: String,
        keyId: [UInt8],
        to counter: UInt32,
        appId: String?
    ) async throws
        -> CounterAdvance
}

extension AppAttestKeyStore {
    /// The strict form: true only when `counter` was stored (tools and store tests).
    package func advanceCounter(deviceID: String, keyId: [UInt8], to counter: UInt32) async throws -> Bool {
        try await advanceCounter(deviceID: deviceID, keyId: keyId, to: counter, appId: nil) == .advanced
    }
}
