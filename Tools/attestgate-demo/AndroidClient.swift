internal import AttestCore
internal import Crypto
internal import FoundationEssentials
internal import HTTPClient
internal import WireContract

/// What an Android app sends: a Play Integrity standard-request token whose `requestHash` is the
/// SHA-256 of the client-data document, so Google's verdict covers this exact call.
///
/// On a phone, `StandardIntegrityTokenProvider.request(requestHash)` returns an opaque token and only
/// Google can decode it. Here the fake Google plays that part: `FakeGoogle.issueToken` registers the
/// verdict Google would return for a fresh opaque token, and the server decodes it as it would in
/// production (OAuth2 service-account token, then `decodeIntegrityToken`).
struct AndroidClient {
    let deviceID: String
    let api: GateAPI
    let google: FakeGoogle
    /// What Google would say about this install (a genuine Play build, or a tampered one).
    let integrity: FakeGoogle.Integrity
    var nextChallenge: String?

    mutating func call(_ path: String, body: [UInt8], now: Date) async throws -> HTTPResponse {
        let challenge: String
        if let reused = nextChallenge {
            challenge = reused
            nextChallenge = nil
        } else {
            challenge = try await api.challenge(deviceID: deviceID)
        }
        let clientData = ClientData(challenge: challenge, method: "POST", path: path, body: body)
        let token = try await google.issueToken(
            requestHash: clientData.playRequestHash,
            integrity: integrity,
            now: now
        )
        let response = try await api.send(
            "POST",
            path,
            headers: [
                HTTPHeader(WireHeader.deviceID.name, deviceID),
                HTTPHeader(WireHeader.challenge.name, challenge),
                HTTPHeader(WireHeader.playIntegrityToken.name, token),
                HTTPHeader(WireHeader.clientData.name, clientData.header),
            ],
            body: body
        )
        if let next = response.header(WireHeader.nextChallenge.name) { nextChallenge = next }
        return response
    }
}

/// The control side of `local-harness/fake_google.py`: registers the verdict Google would give a token.
struct FakeGoogle: Sendable {
    let baseURL: String
    let packageName: String
    let certificateDigest: String
    let transport = CurlTransport()

    enum Integrity: Sendable {
        /// Installed from Play, unmodified, on a device that meets device integrity.
        case genuine
        /// A re-signed (modified) build on a rooted device: Play does not recognise it.
        case tampered
    }

    /// A fresh opaque token and the verdict behind it (Play's standard request, verdict fields as documented).
    func issueToken(requestHash: String, integrity: Integrity, now: Date) async throws -> String {
        let token = "demo." + Bytes.base64URL(SecureRandom().bytes(24))
        let millis = String(Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        let genuine = integrity == .genuine
        let payload = JSONValue.object([
            "requestDetails": .object([
                "requestPackageName": .string(packageName),
                "requestHash": .string(requestHash),
                "timestampMillis": .string(millis),
            ]),
            "appIntegrity": .object([
                "appRecognitionVerdict": .string(genuine ? "PLAY_RECOGNIZED" : "UNRECOGNIZED_VERSION"),
                "packageName": .string(packageName),
                "certificateSha256Digest": .array([
                    .string(genuine ? certificateDigest : "cmUtc2lnbmVkLWJ5LWF0dGFja2Vy")
                ]),
                "versionCode": .string("42"),
            ]),
            "deviceIntegrity": .object(
                genuine ? ["deviceRecognitionVerdict": .array([.string("MEETS_DEVICE_INTEGRITY")])] : [:]
            ),
            "accountDetails": .object(["appLicensingVerdict": .string(genuine ? "LICENSED" : "UNEVALUATED")]),
        ])
        let response = try await transport.send(
            HTTPRequest(
                method: "POST",
                url: baseURL + "/control/verdict",
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: JSONValue.object(["token": .string(token), "payload": payload]).serializedBytes
            )
        )
        guard response.status == 200 else { throw DemoError("fake Google refused the verdict: \(response.status)") }
        return token
    }
}
