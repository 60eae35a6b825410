internal import AttestCore
internal import Gate
internal import LambdaRuntime

/// Routes one metered API Gateway request into the metered pipeline and back.
struct MeteredRouteHandler: APIRouteHandler {
    let route: MeteredRoute
    let pipeline: any MeteredPipeline
    let clock: any WallClock
    let paidClaim: Configuration.PaidClaim?

    /// A streamed route is what the Function URL is for; a buffered one is served by the HTTP APIs only.
    var servedThroughFunctionURL: Bool { route.stream }

    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
        let now = clock.now()
        var headers: [String: String] = [:]
        for name in request.headers.names { headers[name.lowercased()] = request.headers[name] }
        let claims = request.jwtClaims
        let metered = MeteredRequest(
            method: request.method,
            rawPath: request.rawPath,
            headers: headers,
            body: request.body,
            userSub: claims?["sub"].flatMap { $0.isEmpty ? nil : $0 },
            paid: paidClaim.map { claims?[$0.claim] == $0.value } ?? false
        )
        let logger = context.logger.with("route", .string(route.feature))
        let answer = await pipeline.handle(
            metered,
            route: route,
            now: now,
            deadline: context.workDeadline(now: now),
            logger: logger
        )
        return APIGatewayResponse(answer, logger: logger)
    }
}
