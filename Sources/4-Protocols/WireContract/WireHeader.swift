/// A header of the HTTP API (docs/api.md): the one place its name is spelled.
///
/// Header names are case-insensitive. Clients send `name`, the documented spelling; the server reads and
/// writes `key`, the lower-case form (API Gateway's HTTP API lower-cases request header names, and the
/// gate's requests and responses keep header maps keyed that way).
package struct WireHeader: Sendable, Hashable, CustomStringConvertible {
    /// As docs/api.md spells it (`X-Device-ID`).
    package let name: String
    /// Lower case (`x-device-id`): the key of a request's or response's header map on the server.
    package let key: String

    private init(_ name: String) {
        self.name = name
        self.key = name.lowercased()
    }

    package var description: String { name }

    // Request headers.

    /// The guest's device ID: a UUID the app generates once and keeps in the Keychain.
    package static let deviceID = WireHeader("X-Device-ID")
    /// The single-use challenge (base64 of 32 bytes) a proof answers.
    package static let challenge = WireHeader("X-Attest-Challenge")
    /// The App Attest key identifier (base64).
    package static let appAttestKeyID = WireHeader("X-App-Attest-Key-Id")
    /// The App Attest assertion (base64 of CBOR).
    package static let appAttestAssertion = WireHeader("X-App-Attest-Assertion")
    /// The Play Integrity standard-request token.
    package static let playIntegrityToken = WireHeader("X-Play-Integrity-Token")
    /// The DeviceCheck token (the weak fallback).
    package static let deviceCheckToken = WireHeader("X-Device-Check-Token")
    /// The client-data document of request binding, base64 (`ClientData`).
    package static let clientData = WireHeader("X-Attest-Client-Data")
    /// A debug token (`agdt_…`), layer-1 proof `debug` for simulators and CI when the deployment has
    /// `DEBUG_TOKENS=on` (docs/clients.md, "Debug tokens").
    package static let debugToken = WireHeader("X-Debug-Token")

    // Response headers.

    /// Calls left in the device's (or user's) allowance for the feature today.
    package static let quotaRemaining = WireHeader("X-Quota-Remaining")
    /// A fresh challenge for the next metered call (base64), saving a round trip.
    package static let nextChallenge = WireHeader("X-Attest-Next-Challenge")
    /// When that challenge expires (Unix seconds).
    package static let nextChallengeExpires = WireHeader("X-Attest-Next-Challenge-Expires")
}
