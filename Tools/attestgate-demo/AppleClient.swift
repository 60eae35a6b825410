internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import HTTPClient
internal import SimulatedDevice
internal import WireContract

/// What an iOS app sends, step by step, with a software stand-in for the Secure Enclave
/// (`SimulatedDevice`: Apple's formats, signed by a synthetic Apple-shaped CA the local server trusts).
///
/// Real app ↔ this file:
/// - `DCAppAttestService.generateKey()`            → `SimulatedAppAttestKey()`
/// - `attestKey(keyId, clientDataHash:)`            → `device.attest(key, clientDataHash:, now:)`
/// - `generateAssertion(keyId, clientDataHash:)`    → `device.assert(&key, clientDataHash:)`
struct AppleClient {
    /// The UUID the app generated once and keeps in the Keychain.
    let deviceID: String
    let device: SimulatedDevice
    var key: SimulatedAppAttestKey
    let api: GateAPI
    /// A reinstall: the app's App Attest key is gone (keys do not survive it), the device ID in the Keychain stays.
    mutating func reinstall() throws { key = try SimulatedAppAttestKey() }

    /// The challenge the last metered answer handed out (`X-Attest-Next-Challenge`): using it saves a
    /// round trip per call. Each challenge is single-use.
    var nextChallenge: String?

    init(deviceID: String, device: SimulatedDevice, api: GateAPI) throws {
        self.deviceID = deviceID
        self.device = device
        self.key = try SimulatedAppAttestKey()
        self.api = api
    }

    /// Once per key (first launch, or after a reinstall): attest the key and register it, with a fresh
    /// DeviceCheck token of the phone (`DCDevice.current.generateToken()`) for the device marks.
    /// Registration binds with `clientDataHash = SHA-256(challenge bytes)`, whatever the routes' binding.
    mutating func registerKey(now: Date) async throws -> HTTPResponse {
        let challenge = try await api.challenge(deviceID: deviceID)
        guard let challengeBytes = Bytes.fromBase64(challenge) else { throw DemoError("challenge is not base64") }
        let attestation = try device.attest(
            key,
            clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: challengeBytes),
            now: now
        )
        let body = JSONValue.object([
            "keyId": .string(Bytes.base64(key.keyId)),
            "attestation": .string(Bytes.base64(attestation)),
            "challenge": .string(challenge), "deviceCheckToken": .string(device.deviceCheckToken()),
        ]).serializedBytes
        return try await api.send(
            "POST",
            "/v1/attest/keys",
            headers: [HTTPHeader(WireHeader.deviceID.name, deviceID)],
            body: body
        )
    }

    /// The headers proving this exact call (request binding): a challenge, the client-data document
    /// and an assertion over `SHA-256(client data)` with the registered key.
    mutating func proofHeaders(method: String, path: String, body: [UInt8]) async throws -> [HTTPHeader] {
        let challenge: String
        if let reused = nextChallenge {
            challenge = reused
            nextChallenge = nil
        } else {
            challenge = try await api.challenge(deviceID: deviceID)
        }
        let clientData = ClientData(challenge: challenge, method: method, path: path, body: body)
        let assertion = try device.assert(&key, clientDataHash: clientData.appAttestClientDataHash)
        return [
            HTTPHeader(WireHeader.deviceID.name, deviceID),
            HTTPHeader(WireHeader.challenge.name, challenge),
            HTTPHeader(WireHeader.appAttestKeyID.name, Bytes.base64(key.keyId)),
            HTTPHeader(WireHeader.appAttestAssertion.name, Bytes.base64(assertion)),
            HTTPHeader(WireHeader.clientData.name, clientData.header),
        ]
    }

    /// One metered call; keeps the answer's next challenge for the following call.
    mutating func call(_ path: String, body: [UInt8]) async throws -> HTTPResponse {
        let headers = try await proofHeaders(method: "POST", path: path, body: body)
        let response = try await api.send("POST", path, headers: headers, body: body)
        remember(response)
        return response
    }

    /// Every gated answer, refusals included, carries a fresh challenge for this device.
    mutating func remember(_ response: HTTPResponse) {
        if let next = response.header(WireHeader.nextChallenge.name) { nextChallenge = next }
    }
}
