package import AttestCore
internal import Crypto
internal import CryptoTestSupport
package import FoundationEssentials
internal import HTTPClient
package import TestSupport
package import WireContract

/// Play Integrity (and DeviceCheck) for a `GateTestApp`: settings that point the app at a running
/// `local-harness/fake_google.py`, and Android calls as the app makes them.
package enum FakePlay {
    package static let packageName = "com.example.attestgate"
    /// The release signing-certificate digest as Play reports it (`ANDROID_CERT_SHA256`).
    package static let certificateDigest = "kGdt2rZz6yPfsZUxxXDFXaC5h1HWpvNzUUTXd9Ib8Pw"
    package static let serviceAccountEmail = "pi-decoder@attestgate-tests.iam.gserviceaccount.com"

    /// A throw-away service-account JSON key (never a real credential).
    package static func serviceAccountJSON() throws -> [UInt8] {
        let key = try GeneratedRSAKey.shared()
        return JSONValue.object([
            "type": .string("service_account"),
            "project_id": .string("attestgate-tests"),
            "private_key_id": .string(Bytes.hex(SecureRandom().bytes(20))),
            "private_key": .string(key.pkcs8PEM),
            "client_email": .string(serviceAccountEmail),
            "token_uri": .string("https://oauth2.googleapis.com/token"),
        ]).serializedBytes
    }

    /// The Play Integrity settings of docs/api.md section 5 for `fake` (started with a service account).
    package static func settings(_ fake: FakeGoogleProcess) -> [String: String?] {
        [
            "ANDROID_PACKAGE": packageName,
            "ANDROID_CERT_SHA256": certificateDigest,
            "GOOGLE_SERVICE_ACCOUNT_FILE": fake.folder + "/service-account.json",
            "GOOGLE_TOKEN_ENDPOINT": fake.tokenURL,
            "PLAY_INTEGRITY_ENDPOINT": fake.baseURL,
        ]
    }

    /// The DeviceCheck settings for `fake` (started with `deviceCheckKeyPEM`).
    package static func deviceCheckSettings(
        _ fake: FakeGoogleProcess,
        keyID: String = "DCKEY12345"
    ) -> [String: String?] {
        [
            "DEVICECHECK_KEY_ID": keyID,
            "DEVICECHECK_PRIVATE_KEY_FILE": fake.folder + "/devicecheck.p8",
            "DEVICECHECK_ENDPOINT": fake.baseURL,
        ]
    }
}

/// One Android call in the making: the challenge, the client data and the token that the fake will
/// decode into the verdict registered for it.
package struct AndroidCall: Sendable {
    package let deviceID: String
    package let challenge: String
    package let path: String
    package let body: [UInt8]
    package let token: String
    /// The client-data document of request binding.
    package let clientData: ClientData

    /// `requestHash` of request binding (what a genuine app passes to Play).
    package var requestHash: String { clientData.playRequestHash }

    /// The proof headers; `clientData: false` leaves out `X-Attest-Client-Data` (challenge binding).
    package func headers(clientData includeClientData: Bool = true) -> [String: String] {
        var headers = [
            WireHeader.deviceID.name: deviceID,
            WireHeader.challenge.name: challenge,
            WireHeader.playIntegrityToken.name: token,
        ]
        if includeClientData { headers[WireHeader.clientData.name] = clientData.header }
        return headers
    }
}

extension GateTestClient {
    /// Prepares a call for `deviceID`: a challenge (fresh unless given) and a unique token.
    package func androidCall(
        deviceID: String,
        challenge: String? = nil,
        path: String = "/v1/generate",
        body: [UInt8] = Array(#"{"prompt":"hello"}"#.utf8)
    ) async throws -> AndroidCall {
        var challengeText = challenge ?? ""
        if challenge == nil { challengeText = try await self.challenge(deviceID: deviceID) }
        return AndroidCall(
            deviceID: deviceID,
            challenge: challengeText,
            path: path,
            body: body,
            token: "pi-" + Bytes.base64URL(SecureRandom().bytes(24)),
            clientData: ClientData(challenge: challengeText, method: "POST", path: path, body: body)
        )
    }

    /// Registers a genuine verdict for `call` on `fake` (timestamp = the app clock's now), with `overrides`
    /// replacing top-level parts of the payload; `phone` is the physical device that made the token.
    package func registerGenuineVerdict(
        _ call: AndroidCall,
        on fake: FakeGoogleProcess,
        requestHash: String? = nil,
        timestamp: Date? = nil,
        overrides: [String: JSONValue] = [:],
        phone: SimulatedAndroidPhone? = nil
    ) async throws {
        try await fake.registerGenuinePlayVerdict(
            token: call.token,
            packageName: FakePlay.packageName,
            requestHash: requestHash ?? call.requestHash,
            certificateDigest: FakePlay.certificateDigest,
            timestampMillis: Int64(((timestamp ?? app.clock.now()).timeIntervalSince1970 * 1000).rounded(.down)),
            overrides: overrides,
            physicalDevice: phone?.physicalID,
            transport: CurlTransport()
        )
    }

    /// Sends `call` to its route.
    package func send(_ call: AndroidCall, headers extra: [String: String] = [:]) async throws -> GateTestResponse {
        var headers = call.headers()
        for (name, value) in extra { headers[name] = value }
        return try await execute(call.path, headers: headers, body: call.body)
    }
}

/// One physical Android phone: whatever app installs (device IDs) it runs, its integrity tokens come from
/// the same device, so Google's device recall bits and activity level are the phone's, not the ID's.
/// The fake Google keeps that state under `physicalID` (`FakeGoogleProcess.setPhysicalDevice`).
package struct SimulatedAndroidPhone: Sendable, Hashable {
    package let physicalID: String

    package init(physicalID: String = "phone-" + Bytes.hex(SecureRandom().bytes(8))) { self.physicalID = physicalID }
}

extension GateTestClient {
    /// A genuine call from `phone` for `deviceID` (a fresh install, or the same one again): a fresh challenge,
    /// a token minted on that phone, and its verdict registered on `fake`.
    package func androidCall(
        on phone: SimulatedAndroidPhone,
        deviceID: String,
        fake: FakeGoogleProcess,
        path: String = "/v1/generate",
        overrides: [String: JSONValue] = [:]
    ) async throws -> AndroidCall {
        let call = try await androidCall(deviceID: deviceID, path: path)
        try await registerGenuineVerdict(call, on: fake, overrides: overrides, phone: phone)
        return call
    }
}
