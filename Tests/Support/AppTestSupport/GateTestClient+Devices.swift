internal import AttestCore
internal import Crypto
internal import FoundationEssentials
package import SimulatedDevice
internal import WireContract

/// A genuine simulated iPhone as the app sees it: the device ID kept in the Keychain, the current App
/// Attest key and the next challenge the server handed out.
package struct IOSDevice: Sendable {
    package let device: SimulatedDevice
    package var key: SimulatedAppAttestKey
    package let deviceID: String
    /// `X-Attest-Next-Challenge` of the last metered response.
    package var nextChallenge: String?

    /// A reinstall: the Keychain keeps the device ID, the key is gone and a new one is generated.
    package mutating func reinstall() throws {
        key = try SimulatedAppAttestKey()
        nextChallenge = nil
    }
}

/// A fresh random (version 4) UUID, lower case, as an app would generate its device ID.
package func randomDeviceID() -> String {
    var bytes = SecureRandom().bytes(16)
    bytes[6] = (bytes[6] & 0x0f) | 0x40
    bytes[8] = (bytes[8] & 0x3f) | 0x80
    let hex = Bytes.hex(bytes)
    let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
        String(hex.utf8.dropFirst(range.lowerBound).prefix(range.count).map { Character(UnicodeScalar($0)) })
    }
    return parts.joined(separator: "-")
}

extension GateTestClient {
    /// A genuine development device of the app's team and bundle, under the CA the app trusts.
    package func iosDevice(deviceID: String = randomDeviceID()) throws -> IOSDevice {
        IOSDevice(
            device: SimulatedDevice(
                teamId: GateTestApp.teamID,
                bundleId: GateTestApp.bundleID,
                environment: .development,
                authority: app.authority
            ),
            key: try SimulatedAppAttestKey(),
            deviceID: deviceID
        )
    }

    /// `POST /v1/attest/challenge`.
    package func requestChallenge(deviceID: String) async throws -> GateTestResponse {
        try await execute("/v1/attest/challenge", headers: [WireHeader.deviceID.name: deviceID])
    }

    /// A fresh challenge (base64) for `deviceID`.
    /// - Throws: when the endpoint does not answer 200 with a challenge.
    package func challenge(deviceID: String) async throws -> String {
        let response = try await requestChallenge(deviceID: deviceID)
        guard response.status == 200, let challenge = response.json?["challenge"]?.stringValue else {
            throw GateTestError("challenge: \(response.status) \(String(decoding: response.body, as: UTF8.self))")
        }
        return challenge
    }

    /// Attests the device's current key for `challenge` (a fresh one when nil) and posts it to
    /// `/v1/attest/keys` under `deviceID` (the device's own by default); `options` breaks one thing.
    package func registerKey(
        _ device: IOSDevice,
        challenge: String? = nil,
        deviceID: String? = nil,
        options: AttestationOptions = .genuine
    ) async throws -> GateTestResponse {
        let deviceID = deviceID ?? device.deviceID
        var challengeText = challenge ?? ""
        if challenge == nil { challengeText = try await self.challenge(deviceID: deviceID) }
        let challenge = challengeText
        guard let challengeBytes = Bytes.fromBase64(challenge) else { throw GateTestError("challenge not base64") }
        let attestation = try device.device.attest(
            device.key,
            clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: challengeBytes),
            now: app.clock.now(),
            options: options
        )
        let body = JSONValue.object([
            "keyId": .string(Bytes.base64(device.key.keyId)),
            "attestation": .string(Bytes.base64(attestation)),
            "challenge": .string(challenge),
        ])
        return try await execute(
            "/v1/attest/keys",
            headers: [WireHeader.deviceID.name: deviceID],
            body: body.serializedBytes
        )
    }

    /// The proof headers of one metered call: a new assertion (the key's counter moves on) over the
    /// client data of this request (`binding: "request"`) or over the challenge alone (`"challenge"`).
    package func proofHeaders(
        _ device: inout IOSDevice,
        method: String = "POST",
        path: String,
        body: [UInt8],
        challenge: String,
        binding: String = "request"
    ) throws -> [String: String] {
        var headers = [
            WireHeader.deviceID.name: device.deviceID,
            WireHeader.challenge.name: challenge,
            WireHeader.appAttestKeyID.name: Bytes.base64(device.key.keyId),
        ]
        let clientDataHash: [UInt8]
        if binding == "request" {
            let clientData = ClientData(challenge: challenge, method: method, path: path, body: body)
            headers[WireHeader.clientData.name] = clientData.header
            clientDataHash = clientData.appAttestClientDataHash
        } else {
            guard let bytes = Bytes.fromBase64(challenge) else { throw GateTestError("challenge not base64") }
            clientDataHash = ChallengeBinding.appAttestClientDataHash(challenge: bytes)
        }
        let assertion = try device.device.assert(&device.key, clientDataHash: clientDataHash)
        headers[WireHeader.appAttestAssertion.name] = Bytes.base64(assertion)
        return headers
    }

    /// One metered call as the app makes it: the challenge the last response handed out (or a fresh one),
    /// a new assertion, then the call; the response's next challenge is kept for the following call.
    package func metered(
        _ device: inout IOSDevice,
        method: String = "POST",
        path: String = "/v1/generate",
        body: [UInt8] = Array(#"{"prompt":"hello"}"#.utf8),
        binding: String = "request"
    ) async throws -> GateTestResponse {
        var challenge = device.nextChallenge ?? ""
        if device.nextChallenge == nil { challenge = try await self.challenge(deviceID: device.deviceID) }
        let headers = try proofHeaders(
            &device,
            method: method,
            path: path,
            body: body,
            challenge: challenge,
            binding: binding
        )
        let response = try await execute(method: method, path, headers: headers, body: body)
        device.nextChallenge = response.header(WireHeader.nextChallenge.name)
        return response
    }
}
