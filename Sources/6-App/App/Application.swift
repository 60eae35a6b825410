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

        package func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse {
            switch self {
            case .api(let handler): try await handler.respond(to: event, context: context)
            case .diagnostics(let handler): .buffered(try await handler.handle(event, context: context))
            }
        }
    }

    /// Reads the configuration once and builds the handler `_HANDLER` names: the stores, verifiers and
    /// layers, with every secret read now (cold start), never per request.
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
        let logger = Logger(level: configuration.logLevel, metadata: configuration.logMetadata)
        let gate = try await makeGate(
            configuration: configuration,
            environment: environment,
            transport: transport,
            clock: clock,
            logger: logger
        )
        // Existentials from the start: a [(String, GateEndpointHandler)] passed as [(String, any
        // APIRouteHandler)] is converted element by element at run time, a dynamic cast that searches
        // every conformance record once per process (at cold start).
        var endpoints: [(String, any APIRouteHandler)] = [
            ("/v1/attest/challenge", GateEndpointHandler(endpoint: .challenge(gate.challenges), clock: clock))
        ]
        if let registration = gate.keyRegistration {
            endpoints.append(("/v1/attest/keys", GateEndpointHandler(endpoint: .keys(registration), clock: clock)))
        }
        let handler = try apiHandler(
            configuration: configuration,
            pipeline: gate.meteredCall,
            clock: clock,
            endpoints: endpoints
        )
        return (.api(handler), configuration)
    }

    /// The API: every metered route of the configuration through `pipeline`.
    package static func apiHandler(
        configuration: Configuration,
        pipeline: any MeteredPipeline,
        clock: any WallClock,
        endpoints: [(String, any APIRouteHandler)] = []
    ) throws -> APIGatewayLambdaHandler {
        var router = Router<any APIRouteHandler>()
        for (path, handler) in endpoints { try router.add("POST", path, handler) }
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
