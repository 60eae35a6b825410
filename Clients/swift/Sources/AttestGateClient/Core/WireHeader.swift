/// The headers of the HTTP API (docs/api.md section 2), spelled as the server's `WireContract.WireHeader`
/// spells them; the known-answer vectors (written by the server's code) check every name. Names are
/// case-insensitive on the wire; responses are read with `TransportResponse.header(_:)`.
enum WireHeader {
    // Request headers.

    /// The guest's device ID: a UUID the app makes once and keeps in the Keychain.
    static let deviceID = "X-Device-ID"
    /// The single-use challenge (base64 of 32 bytes) the proof answers.
    static let challenge = "X-Attest-Challenge"
    /// The App Attest key id (base64).
    static let appAttestKeyID = "X-App-Attest-Key-Id"
    /// The App Attest assertion (base64 of CBOR).
    static let appAttestAssertion = "X-App-Attest-Assertion"
    /// The Play Integrity standard-request token (the Android library's; named here for the vectors).
    static let playIntegrityToken = "X-Play-Integrity-Token"
    /// A DeviceCheck token (base64): the weak fallback, and the device marks' renewal.
    static let deviceCheckToken = "X-Device-Check-Token"
    /// The client-data document of request binding (base64).
    static let clientData = "X-Attest-Client-Data"

    // Response headers.

    /// Calls left today on the route's feature for this device ID.
    static let quotaRemaining = "X-Quota-Remaining"
    /// A fresh challenge for the next call (base64).
    static let nextChallenge = "X-Attest-Next-Challenge"
    /// When that challenge expires (Unix seconds).
    static let nextChallengeExpires = "X-Attest-Next-Challenge-Expires"
    /// Seconds until a refusal may succeed (quota, ceiling, challenges).
    static let retryAfter = "Retry-After"
}
