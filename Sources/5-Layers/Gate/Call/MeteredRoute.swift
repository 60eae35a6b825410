package import Dialects
package import PlayIntegrity

/// One metered route's policy, from the `ROUTES` setting (docs/api.md section 5).
package struct MeteredRoute: Sendable, Hashable {
    package var method: String
    /// The path pattern, e.g. `/v1/tutor/{deckId}/{cardId}`.
    package var path: String
    /// The allowance pool and the `route` metric dimension.
    package var feature: String
    package var mode: GateMode
    package var binding: BindingMode
    package var onUnavailable: UnavailablePolicy
    package var allowance: AllowancePolicy
    /// The path appended to `UPSTREAM_URL`.
    package var upstreamPath: String
    /// The largest upstream answer forwarded.
    package var maxResponseBytes: Int
    /// Require `MEETS_STRONG_INTEGRITY` instead of `MEETS_DEVICE_INTEGRITY` on Android.
    package var requireStrongIntegrity: Bool
    /// Stream the upstream's `text/event-stream` to the client (Lambda response streaming) once every
    /// layer admitted the call; refusals stay ordinary JSON answers.
    package var stream: Bool = false
    /// A stream is cut (connection closed, error trailer) once it has lasted this long.
    package var maxStreamSeconds: Int = MeteredRoute.defaultMaxStreamSeconds
    /// ... or once it has passed this many bytes on.
    package var maxStreamBytes: Int = MeteredRoute.defaultMaxStreamBytes

    package static let defaultMaxStreamSeconds = 60
    /// Lambda's limit on a streamed response is 20 MiB; the prelude needs a little of it.
    package static let defaultMaxStreamBytes = 20 * 1024 * 1024 - 64 * 1024
    /// When a call's units go back (`unbilled`: only what provably was not billed).
    package var release: ReleasePolicy
    /// Provider statuses that are documented refusals before any work, released under either policy.
    package var releaseStatuses: StatusSet
    /// The largest request body accepted (`413 request_too_large` before anything is spent).
    package var maxRequestBytes: Int
    /// The upstream call's time limit; nil: the invocation's remaining time minus the margin (never more).
    package var upstreamTimeout: Duration?
    /// How the body is read: `opaque` passes it through; a known dialect checks the model, caps the output
    /// and reads the reported usage.
    package var dialect: Dialect = .opaque
    /// The models a known dialect's request may name; nil allows any.
    package var models: Set<String>?
    /// The output cap a known dialect's request is given (required for a known dialect).
    package var maxOutputTokens: Int?
    /// Declared bound on the input tokens of one call, text and media together (at most the model's
    /// context window): the worst case takes it when it is above the body's byte count, and only a route
    /// that declares it lets media (images, audio, files) through. The cap then holds as far as this
    /// declaration does.
    package var maxInputTokens: Int?
    /// `template`: the provider request the gate renders from the client's `{"variables": {…}}` (a template
    /// route: docs/dialects.md, "Template routes"); nil: the client sends the provider request itself.
    package var template: RequestTemplate?
    /// `allowFields`: top-level request fields beyond the dialect's closed world that the operator has priced
    /// (docs/dialects.md); `service_tier` also lets OpenAI's `flex` through.
    package var allowFields: Set<String> = []
    /// Prices per model, for the money ceiling.
    package var prices: [String: ModelPrice] = [:]
    /// `deviceCheckFallback`: whether DeviceCheck (configured globally) may vouch for a call on this route.
    /// Off by default: DeviceCheck cannot bind a proof to the device ID, so a route must opt in.
    package var deviceCheckFallback = false
    /// The highest Play Integrity `recentDeviceActivity` level accepted on Android (`UNEVALUATED` passes).
    package var maxDeviceActivity: DeviceActivityLevel
    /// `repeatAllowance`: replaces `allowance` for a `repeat` device ID (another ID on a physical device that
    /// already has its free tier). None by default.
    package var repeatAllowance = MeteredRoute.defaultRepeatAllowance
    /// `onUnknownDevice`: how an `unknown` device ID is metered (`repeat` unless the route opts in to `first`).
    package var onUnknownDevice = UnknownDevicePolicy.repeat
    /// `unproven.allowance`: on an `enforce` route, a call with no proof at all is served by this allowance
    /// from the environment's unproven pool instead of refused; nil (the default): refused
    /// (docs/gate.md, "The unproven pool").
    package var unproven: AllowancePolicy?

    package static let defaultRepeatAllowance = AllowancePolicy(firstDay: 0, laterDays: 0)

    /// The allowance a device ID of `tier` is metered by: `allowance` for `first`, `repeatAllowance` for
    /// `repeat`, and for `unknown` whichever `onUnknownDevice` names.
    package func allowance(for tier: DeviceTier) -> AllowancePolicy {
        switch tier {
        case .first: allowance
        case .repeat: repeatAllowance
        case .unknown: allowance(for: onUnknownDevice.meteredAs)
        }
    }

    package init(
        method: String = "POST",
        path: String,
        feature: String,
        mode: GateMode = .monitor,
        binding: BindingMode = .request,
        onUnavailable: UnavailablePolicy = .allow,
        allowance: AllowancePolicy = .seedDefault,
        upstreamPath: String,
        maxResponseBytes: Int = 65_536,
        requireStrongIntegrity: Bool = false,
        release: ReleasePolicy = .unbilled,
        releaseStatuses: StatusSet = ReleasePolicy.defaultStatuses,
        maxRequestBytes: Int = MeteredRoute.defaultMaxRequestBytes,
        upstreamTimeout: Duration? = nil,
        maxDeviceActivity: DeviceActivityLevel = .routeDefault
    ) {
        self.method = method
        self.path = path
        self.feature = feature
        self.mode = mode
        self.binding = binding
        self.onUnavailable = onUnavailable
        self.allowance = allowance
        self.upstreamPath = upstreamPath
        self.maxResponseBytes = maxResponseBytes
        self.requireStrongIntegrity = requireStrongIntegrity
        self.release = release
        self.releaseStatuses = releaseStatuses
        self.maxRequestBytes = maxRequestBytes
        self.upstreamTimeout = upstreamTimeout
        self.maxDeviceActivity = maxDeviceActivity
    }

    /// The output cap of a known dialect whose route declares none.
    package static let defaultMaxOutputTokens = 1024

    /// 1 MiB: far above a prompt, far below what makes a worst case unbounded.
    package static let defaultMaxRequestBytes = 1_048_576
}
