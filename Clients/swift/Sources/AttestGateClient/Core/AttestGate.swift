/// An app's side of AttestGate's protocol (docs/api.md section 2) for guests on metered routes, proved by
/// App Attest with request binding.
///
/// For each call it takes a challenge (one the server handed out with an earlier answer, else a fresh one),
/// writes the client-data document for exactly this request, has the App Attest key sign an assertion over
/// its hash (one assertion at a time per key), and sends `X-Device-ID`, `X-Attest-Challenge`,
/// `X-App-Attest-Key-Id`, `X-App-Attest-Assertion` and `X-Attest-Client-Data` with the body. The first call
/// (or `prepare()`) makes, attests and registers the key (`KeyLifecycle`). The answer becomes a typed
/// `Outcome`.
///
/// `403 attestation_required` after a proof is recovered once with a fresh challenge, then once with a new
/// key (generated, attested, registered); refused again, the outcome is `attestationRequired`: at most
/// three proved requests a call, never a loop. Where App Attest gives no proof (`isSupported` false, the
/// framework failing), the call goes without it and the server's policy decides. Failures that spent
/// nothing are retried under the `RetryPolicy`; nothing ever prompts the user.
///
/// One client serves the whole app, from any task; each call uses its own challenge.
public final class AttestGate: Sendable {
    /// The device ID every call carries (lower case).
    public let deviceID: String
    let configuration: Configuration
    let platform: Platform
    let api: ServerAPI
    let registrar: KeyRegistrar
    let lanes = AssertionLanes()

    /// - Parameters:
    ///   - deviceID: the app's device ID (`DeviceIdentity.loadOrCreate(in:)`).
    public init(configuration: Configuration, deviceID: String, platform: Platform) {
        self.deviceID = deviceID.lowercased()
        self.configuration = configuration
        self.platform = platform
        api = ServerAPI(
            configuration: configuration,
            deviceID: deviceID.lowercased(),
            transport: platform.transport,
            pool: ChallengePool(),
            clock: platform.clock
        )
        registrar = KeyRegistrar(
            appAttest: platform.appAttest,
            deviceCheck: platform.deviceCheck,
            store: platform.store,
            api: api,
            maxNewKeysPerDay: configuration.maxNewKeysPerDay,
            onEvent: configuration.onEvent
        )
    }

    /// Makes, attests and registers the App Attest key now if it needs it (e.g. at app start, off the
    /// critical path); a call does the same when it has to. Nothing is shown to the user.
    public func prepare() async -> Registration {
        var retrier = makeRetrier()
        switch await registrar.ready(&retrier) {
        case .ready(_, let binding?): return .registered(binding: binding)
        case .ready(_, nil): return .alreadyRegistered
        case .unavailable(let reason): return .unavailable(reason)
        case .failed(let failure): return .failed(failure)
        }
    }

    /// One metered call, its answer read whole (at most `maxResponseBytes`).
    /// - Parameters:
    ///   - path: the route's path as sent, percent-encoded, without a query.
    public func call(
        _ method: String,
        _ path: String,
        body: [UInt8] = [],
        contentType: String? = "application/json"
    )
        async -> Outcome
    {
        await run(Request(method: method, path: path, body: body, contentType: contentType, streamed: false))
    }

    /// `call("POST", path, body:)`.
    public func post(_ path: String, body: [UInt8]) async -> Outcome { await call("POST", path, body: body) }

    /// A call to a streamed route (`"stream": true`, docs/streaming.md): `.streamed` with the events as they
    /// arrive, or any other outcome as `call` gives it (refusals are JSON answers; a provider that did not
    /// stream comes back `.served`).
    public func stream(
        _ method: String,
        _ path: String,
        body: [UInt8] = [],
        contentType: String? = "application/json"
    ) async -> Outcome {
        await run(Request(method: method, path: path, body: body, contentType: contentType, streamed: true))
    }

    struct Request: Sendable {
        let method: String
        let path: String
        let body: [UInt8]
        let contentType: String?
        let streamed: Bool
    }

    func makeRetrier() -> Retrier {
        Retrier(
            policy: configuration.retryPolicy,
            clock: platform.clock,
            jitter: platform.jitter,
            onEvent: configuration.onEvent
        )
    }
}
