/// The App Attest key's lifecycle as a pure state machine (no I/O, no clock: `now` is passed in), driven by
/// `KeyRegistrar`:
///
/// ```
///  none ──generateKey──▶ generated ──attestKey──▶ attested ──POST /v1/attest/keys 200──▶ registered
///                          │  ▲ serverUnavailable       │ answer lost: resend the same body
///                          ▼  │ (same key, same hash)   │ resend refused, or challenge expired
///                        attesting                      ▼
///                                                   unconfirmed (used as if registered)
///  invalidKey (attestKey or generateAssertion) · 403 attestation_rejected on a first send ·
///  proof refused twice ──▶ none (a new key)
/// ```
///
/// Generate once, attest once per key, keep the key id, reset on `invalidKey`, and retry `serverUnavailable`
/// with the same key and `clientDataHash` (Apple, `DCError.Code.serverUnavailable`).
struct KeyLifecycle: Sendable, Hashable {
    /// What the driver should do next.
    enum Action: Sendable, Hashable {
        /// Make a key (`generateKey`).
        case generateKey
        /// Attest `keyID`; `retry` carries the challenge and hash of an attestation to try again.
        case attest(keyID: String, retry: AttestRetry?)
        /// Send the registration of an attested key.
        case register(keyID: String, attestation: [UInt8], challenge: String)
        /// The key can sign assertions.
        case use(keyID: String)
    }

    /// The inputs of an attestation Apple could not complete (`serverUnavailable`), to send again unchanged.
    struct AttestRetry: Sendable, Hashable {
        let challenge: Challenge
        let clientDataHash: [UInt8]
    }

    private(set) var record: KeyRecord?
    /// Seconds before a challenge's expiry at which it is no longer worth sending.
    let margin: Int64

    init(record: KeyRecord? = nil, margin: Int64 = 15) {
        self.record = record
        self.margin = margin
    }

    /// The next step for the key as it stands at `now` (Unix seconds).
    func next(now: Int64) -> Action {
        guard let record else { return .generateKey }
        switch record.phase {
        case .generated:
            return .attest(keyID: record.keyID, retry: nil)
        case .attesting(let challenge, let hash, let expiresAt):
            // The same hash while its challenge can still be spent; after that the hash is worthless to the
            // server, and only a new challenge (a new hash, with the same key) can register the key.
            let live = expiresAt - margin > now
            let retry = AttestRetry(challenge: Challenge(value: challenge, expiresAt: expiresAt), clientDataHash: hash)
            return .attest(keyID: record.keyID, retry: live ? retry : nil)
        case .attested(let attestation, let challenge, let expiresAt, _):
            // An attested key cannot be attested again (`invalidKey`): once its challenge expired the
            // registration cannot be sent, and the key is used as it is. If the server never bound it, the
            // first call's refusals renew it (`proofRefused`).
            guard expiresAt - margin > now else { return .use(keyID: record.keyID) }
            return .register(keyID: record.keyID, attestation: attestation, challenge: challenge)
        case .registered, .unconfirmed:
            return .use(keyID: record.keyID)
        }
    }

    /// Whether the server is known to hold the key.
    var isRegistered: Bool { record?.phase == .registered }

    // Events.

    /// `generateKey` returned `keyID`.
    mutating func keyGenerated(_ keyID: String) { record = KeyRecord(keyID: keyID, phase: .generated) }

    /// `attestKey` answered `serverUnavailable` for this challenge and hash.
    mutating func attestationDeferred(challenge: Challenge, clientDataHash: [UInt8]) {
        guard var record else { return }
        record.phase = .attesting(
            challenge: challenge.value,
            clientDataHash: clientDataHash,
            expiresAt: challenge.expiresAt
        )
        self.record = record
    }

    /// Apple attested the key over `challenge`.
    mutating func attested(_ attestation: [UInt8], challenge: Challenge) {
        guard var record else { return }
        record.phase = .attested(
            attestation: attestation,
            challenge: challenge.value,
            expiresAt: challenge.expiresAt,
            sent: false
        )
        self.record = record
    }

    /// The registration's answer was lost after the request left: the server may have bound the key.
    mutating func registrationAnswerLost() {
        guard var record, case .attested(let attestation, let challenge, let expiresAt, _) = record.phase else {
            return
        }
        record.phase = .attested(attestation: attestation, challenge: challenge, expiresAt: expiresAt, sent: true)
        self.record = record
    }

    /// The server answered the registration with a binding.
    mutating func registered() {
        guard var record else { return }
        record.phase = .registered
        self.record = record
    }

    /// `403 attestation_rejected`. After a lost answer the refusal is most likely the spent challenge of the
    /// registration that did arrive: keep the key. Else the attestation itself was refused: a new key.
    mutating func registrationRejected() {
        guard var record, case .attested(_, _, _, let sent) = record.phase else { return }
        if sent {
            record.phase = .unconfirmed
            self.record = record
        } else {
            self.record = nil
        }
    }

    /// `invalidKey` from `attestKey` or `generateAssertion`, or the server refused the key's proofs twice:
    /// forget the key; the next step makes a new one.
    mutating func keyRejected() { record = nil }
}
