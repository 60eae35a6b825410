package import AttestCore
internal import Gate
package import HTTPClient
package import LambdaRuntime

/// Builds the function's handler from the configuration at cold start.
package enum Application {
    /// What `bootstrap` runs: the API, or (development only) the diagnostics handler.
    package enum Handler: LambdaHandler {
        case api(APIGatewayLambdaHandler)
        case diagnostics(DiagnosticsHandler)

        package func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
            switch self {
            case .api(let handler): try await handler.handle(event, context: context)
            case .diagnostics(let handler): try await handler.handle(event, context: context)
            }
        }
    }

    /// Reads the configuration once and builds the handler `_HANDLER` names.
    /// - Throws: `ConfigurationError` or `StartupError`; `bootstrap` posts it to `/runtime/init/error`.
    package static func makeHandler(
        environment: Environment,
        transport: any HTTPTransport,
        clock: any WallClock
    ) async throws -> (Handler, Configuration) {
        let configuration = try Configuration(environment: environment)
        if environment["_HANDLER"] == "diagnostics" {
            guard configuration.environment == .development else {
                throw StartupError(
                    .diagnosticsInProduction,
                    detail: "_HANDLER=diagnostics needs ATTESTGATE_ENV=development"
                )
            }
            return (.diagnostics(DiagnosticsHandler()), configuration)
        }
        let key = try await SecretReader.read(
            configuration.upstream.apiKey,
            name: "UPSTREAM_API_KEY",
            configuration: configuration,
            transport: transport
        )
        let upstream = HTTPUpstream(
            baseURL: configuration.upstream.baseURL,
            authHeader: configuration.upstream.authHeader,
            key: String(decoding: key, as: UTF8.self),
            transport: transport
        )
        let handler = try apiHandler(
            configuration: configuration,
            pipeline: UpstreamOnlyPipeline(upstream: upstream),
            clock: clock
        )
        return (.api(handler), configuration)
    }

    /// The API: every metered route of the configuration through `pipeline`.
    package static func apiHandler(
        configuration: Configuration,
        pipeline: any MeteredPipeline,
        clock: any WallClock
    ) throws -> APIGatewayLambdaHandler {
        var router = Router<any APIRouteHandler>()
        for route in configuration.routes {
            let handler = MeteredRouteHandler(
                route: route,
                pipeline: pipeline,
                clock: clock,
                paidClaim: configuration.paidClaim
            )
            try router.add(route.method, route.path, handler)
        }
        return APIGatewayLambdaHandler(router: router)
    }
}
