/// One metered route's policy, from the `ROUTES` setting (design.md section 5).
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
        requireStrongIntegrity: Bool = false
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
    }
}
