/// How a client talks to one AttestGate deployment.
public struct Configuration: Sendable {
    /// The API's base URL, without a trailing slash: `https://api.example.com` (the HTTP API), or the
    /// Function URL for streamed routes (docs/streaming.md, "On AWS").
    public var baseURL: String
    /// When the client tries again by itself.
    public var retryPolicy: RetryPolicy
    /// The largest buffered answer read (a larger one is a `networkFailure(.responseTooLarge)`).
    public var maxResponseBytes: Int
    /// Bounds of a streamed answer's parser (a line, an event's data).
    public var maxEventLineBytes: Int
    public var maxEventBytes: Int
    /// Seconds without progress after which a request is given up.
    public var timeout: Double
    /// When to send a DeviceCheck token on metered calls (`X-Device-Check-Token`); the key registration
    /// always carries one when the device can make it.
    public var deviceCheckOnCalls: DeviceCheckUse
    /// The most App Attest keys the install makes in any 24 hours, whatever goes wrong (a server that
    /// refuses every registration, Apple answering `invalidKey` to every key): each key counts in Apple's
    /// fraud-risk metric for the device, and Apple asks apps to keep `attestKey` calls few. Past it, calls go
    /// without App Attest proof (`MissingEvidence.keyLimit`) until the oldest key is a day old.
    public var maxNewKeysPerDay: Int
    /// What the client did on its own (key made, recovery, retries), for logs and metrics.
    public var onEvent: (@Sendable (ClientEvent) -> Void)?
    #if DEBUG
    /// Debug builds only: a debug token (`agdt_…`) sent as `X-Debug-Token` instead of any App Attest proof,
    /// for simulators, CI and UI tests. By default read from `ATTESTGATE_DEBUG_TOKEN` or the launch argument
    /// `-AttestGateDebugToken <token>` (`DebugToken.fromProcess()`); release builds have no such setting.
    public var debugToken: String? = DebugToken.fromProcess()
    #endif

    public init(
        baseURL: String,
        retryPolicy: RetryPolicy = RetryPolicy(),
        maxResponseBytes: Int = 6 << 20,
        timeout: Double = 30,
        deviceCheckOnCalls: DeviceCheckUse = .whenAppAttestIsUnavailable,
        maxNewKeysPerDay: Int = 3,
        onEvent: (@Sendable (ClientEvent) -> Void)? = nil
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.retryPolicy = retryPolicy
        self.maxResponseBytes = maxResponseBytes
        self.maxEventLineBytes = 1 << 20
        self.maxEventBytes = 4 << 20
        self.timeout = timeout
        self.deviceCheckOnCalls = deviceCheckOnCalls
        self.maxNewKeysPerDay = max(1, maxNewKeysPerDay)
        self.onEvent = onEvent
    }
}

/// When metered calls carry a DeviceCheck token.
public enum DeviceCheckUse: Sendable, Hashable {
    /// Never (registration still sends one).
    case never
    /// Only when App Attest gives no proof: the token (with the call's challenge) is then the weak fallback
    /// that routes with `deviceCheckFallback` accept (docs/gate.md, "DeviceCheck, a per-route fallback").
    case whenAppAttestIsUnavailable
    /// On every call too, so the server can renew an expired device mark (docs/appattest.md, "Device marks").
    case always
}
