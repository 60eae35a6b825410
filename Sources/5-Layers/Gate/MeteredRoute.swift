package import PlayIntegrity

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
    /// The highest Play Integrity `recentDeviceActivity` level accepted on Android (`UNEVALUATED` passes).
    package var maxDeviceActivity: DeviceActivityLevel

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
        self.maxDeviceActivity = maxDeviceActivity
    }
}
