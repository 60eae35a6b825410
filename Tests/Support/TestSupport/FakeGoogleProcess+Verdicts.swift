public import AttestCore
public import HTTPClient

extension FakeGoogleProcess {
    /// Registers `token` as a passing standard-request verdict: `requestHash`, `timestampMillis`, our
    /// package, `PLAY_RECOGNIZED`, `certificateDigest` and `MEETS_DEVICE_INTEGRITY`.
    /// `overrides` replaces top-level parts of the payload (e.g. `"deviceIntegrity": .object([:])`).
    /// `physicalDevice` names the phone that made the token: its decode then carries that phone's device
    /// recall bits and activity level (`setPhysicalDevice`), and a recall write with it changes them.
    public func registerGenuinePlayVerdict(
        token: String,
        packageName: String,
        requestHash: String,
        certificateDigest: String,
        timestampMillis: Int64,
        overrides: [String: JSONValue] = [:],
        physicalDevice: String? = nil,
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
        var command: [String: JSONValue] = ["token": .string(token), "payload": .object(payload)]
        if let physicalDevice { command["device"] = .string(physicalDevice) }
        try await control("/control/verdict", .object(command), transport: transport)
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

extension FakeGoogleProcess {
    /// A physical device's state on the fake: its recall bits (and their write months) and activity level.
    public struct PhysicalDeviceState: Sendable, Hashable {
        public var bitFirst: Bool
        public var bitSecond: Bool
        public var bitThird: Bool
        /// `yyyymmFirst`, when bitFirst is set.
        public var firstWriteMonth: Int?
        public var activity: String?
    }

    /// Sets `device`'s recall bits (only those given) and activity level (`.some(nil)`: none).
    public func setPhysicalDevice(
        _ device: String,
        bitFirst: Bool? = nil,
        bitSecond: Bool? = nil,
        activity: String?? = nil,
        transport: some HTTPTransport
    ) async throws {
        var recall: [String: JSONValue] = [:]
        if let bitFirst { recall["bitFirst"] = .bool(bitFirst) }
        if let bitSecond { recall["bitSecond"] = .bool(bitSecond) }
        var command: [String: JSONValue] = ["device": .string(device), "recall": .object(recall)]
        if let activity { command["activity"] = activity.map(JSONValue.string) ?? .null }
        try await control("/control/device", .object(command), transport: transport)
    }

    /// `device`'s state as the fake holds it.
    public func physicalDevice(_ device: String, transport: some HTTPTransport) async throws -> PhysicalDeviceState {
        let answer = try JSONValue.parse(
            try await transport.send(HTTPRequest(method: "GET", url: baseURL + "/control/device?device=" + device)).body
        )
        let bits = answer["bits"]
        return PhysicalDeviceState(
            bitFirst: bits?["bitFirst"]?.boolValue ?? false,
            bitSecond: bits?["bitSecond"]?.boolValue ?? false,
            bitThird: bits?["bitThird"]?.boolValue ?? false,
            firstWriteMonth: answer["dates"]?["bitFirst"]?.intValue.map { Int($0) },
            activity: answer["activity"]?.stringValue
        )
    }

    /// Device recall's failure modes: `enabled: false` (verdicts carry no `deviceRecall`), a `status` for
    /// every write (500 = Google down; 200 = normal again), `hang` seconds before each write's answer, or a
    /// `raw` value every verdict carries as its `deviceRecall` (shapes Google does not document), or
    /// `propagationSeconds` before a write shows in verdicts (Google documents up to 30 s).
    public func setDeviceRecall(
        enabled: Bool? = nil,
        writeStatus: Int? = nil,
        hang: Double? = nil,
        raw: JSONValue? = nil,
        propagationSeconds: Double? = nil,
        transport: some HTTPTransport
    ) async throws {
        var command: [String: JSONValue] = [:]
        if let propagationSeconds { command["propagationSeconds"] = .double(propagationSeconds) }
        if let enabled { command["enabled"] = .bool(enabled) }
        if let writeStatus { command["status"] = .int(Int64(writeStatus)) }
        if let hang { command["hang"] = .double(hang) }
        if let raw { command["raw"] = raw }
        try await control("/control/recall", .object(command), transport: transport)
    }
}
