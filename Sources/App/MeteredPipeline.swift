package import AttestCore
package import FoundationEssentials
package import Gate

/// Everything a metered route does after routing: gate → allowance → ceiling → upstream.
///
/// `MeteredCall` (Gate) is the full pipeline once its stores exist; `UpstreamOnlyPipeline` serves
/// `mode: off` routes until then. The route handler only knows this protocol, so the app switches
/// from one to the other without touching routing or event handling.
package protocol MeteredPipeline: Sendable {
    /// - Parameter deadline: the invocation's deadline; store requests and the upstream call end before it.
    func handle(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: Deadline,
        logger: Logger
    ) async -> MeteredResponse
}

extension MeteredCall: MeteredPipeline {}

/// The last step alone: `X-Device-ID` checked, then the upstream call. Only for routes whose gate is
/// off; a gated route answers `503 unavailable` (fail closed) because its stores are not wired.
package struct UpstreamOnlyPipeline: MeteredPipeline {
    private let upstream: any UpstreamCalling
    private let margin: Duration

    /// - Parameter margin: kept back from the invocation's remaining time to answer the client.
    package init(upstream: any UpstreamCalling, margin: Duration = .milliseconds(300)) {
        self.upstream = upstream
        self.margin = margin
    }

    package func handle(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: Deadline,
        logger: Logger
    ) async -> MeteredResponse {
        guard route.mode == .off else {
            logger.error("gated route without gate stores", ["route": .string(route.feature)])
            return .error(503, "unavailable")
        }
        if request.userSub == nil, DeviceID.canonical(request.header("x-device-id")) == nil {
            return .error(400, "invalid_device_id")
        }
        let timeout = max(.milliseconds(1), deadline.remaining - margin)
        switch await upstream.call(route: route, body: request.body, timeout: timeout) {
        case .answered(let status, let contentType, let body):
            var headers = ["cache-control": "no-store"]
            if let contentType { headers["content-type"] = contentType }
            return MeteredResponse(status: status, headers: headers, body: body)
        case .notAnswered(let timedOut, let reason):
            logger.warning("upstream unavailable", ["route": .string(route.feature), "reason": .string(reason)])
            return .error(timedOut ? 504 : 502, "upstream_unavailable")
        }
    }
}
