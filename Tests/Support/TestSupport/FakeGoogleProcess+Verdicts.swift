public import AttestCore
public import HTTPClient

extension FakeGoogleProcess {
    /// Registers `token` as a passing standard-request verdict: `requestHash`, `timestampMillis`, our
    /// package, `PLAY_RECOGNIZED`, `certificateDigest` and `MEETS_DEVICE_INTEGRITY`.
    /// `overrides` replaces top-level parts of the payload (e.g. `"deviceIntegrity": .object([:])`).
    public func registerGenuinePlayVerdict(
        token: String,
        packageName: String,
        requestHash: String,
        certificateDigest: String,
        timestampMillis: Int64,
        overrides: [String: JSONValue] = [:],
        transport: some HTTPTransport
    ) async throws {
        var payload: [String: JSONValue] = [
            "requestDetails": .object([
                "requestPackageName": .string(packageName),
                "requestHash": .string(requestHash),
                "timestampMillis": .string(String(timestampMillis)),
            ]),
            "appIntegrity": .object([
                "appRecognitionVerdict": .string("PLAY_RECOGNIZED"),
                "packageName": .string(packageName),
                "certificateSha256Digest": .array([.string(certificateDigest)]),
                "versionCode": .string("42"),
            ]),
            "deviceIntegrity": .object(["deviceRecognitionVerdict": .array([.string("MEETS_DEVICE_INTEGRITY")])]),
            "accountDetails": .object(["appLicensingVerdict": .string("LICENSED")]),
        ]
        for (key, value) in overrides { payload[key] = value }
        try await control(
            "/control/verdict",
            .object(["token": .string(token), "payload": .object(payload)]),
            transport: transport
        )
    }

    /// Makes the token endpoint answer `status` (401 = a revoked key; 200 = normal again).
    public func setTokenEndpointStatus(_ status: Int, transport: some HTTPTransport) async throws {
        try await control("/control/token", .object(["status": .int(Int64(status))]), transport: transport)
    }

    /// Makes the decode endpoint answer `status` for every token (500 = Google down; 200 = normal again).
    public func setDecodeStatus(_ status: Int, transport: some HTTPTransport) async throws {
        try await control("/control/decode", .object(["status": .int(Int64(status))]), transport: transport)
    }
}

extension FakeGoogleProcess {
    /// Makes every verdict that carries no `recentDeviceActivity` of its own answer
    /// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel = level` (nil: the field stays absent).
    public func setDeviceActivity(_ level: String?, transport: some HTTPTransport) async throws {
        try await control(
            "/control/activity",
            .object(["level": level.map(JSONValue.string) ?? .null]),
            transport: transport
        )
    }
}
