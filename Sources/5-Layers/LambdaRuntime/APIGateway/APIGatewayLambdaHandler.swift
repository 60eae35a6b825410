internal import AttestCore

/// Handles one routed API Gateway request. It never throws: every failure is a response.
package protocol APIRouteHandler: Sendable {
    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse
}

/// The `LambdaHandler` for API Gateway: decode the event, route it, run the route, encode the answer.
///
/// Client mistakes never reach the Runtime API's `/error` endpoint: an event that is not an API
/// Gateway event answers `400 invalid_request`, an unknown path `404 not_found`, a known path with
/// another method `405 method_not_allowed` (with `Allow`).
package struct APIGatewayLambdaHandler: LambdaHandler {
    private let router: Router<any APIRouteHandler>

    package init(router: Router<any APIRouteHandler>) {
        self.router = router
    }

    package func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        var request: APIGatewayRequest
        do {
            request = try APIGatewayRequest(event: event)
        } catch {
            context.logger.warning("invalid event", ["reason": .string(error.reason.slug)])
            // The format is unknown; the 2.0 shape is also what REST and 1.0 integrations accept.
            return APIGatewayResponse.error(400, "invalid_request").encoded(for: .httpV2)
        }
        let response: APIGatewayResponse
        switch resolve(request) {
        case .matched(let handler, let parameters):
            request.pathParameters = parameters
            response = await handler.handle(request, context: context)
        case .methodNotAllowed(let allowed):
            response = .error(405, "method_not_allowed", headers: ["Allow": allowed.joined(separator: ", ")])
        case .notFound:
            response = .error(404, "not_found")
        }
        return response.encoded(for: request.format)
    }

    /// The answer for the first of the request's route paths that names a route (for any method).
    private func resolve(_ request: APIGatewayRequest) -> Router<any APIRouteHandler>.Resolution {
        for path in request.routePaths {
            let resolution = router.resolve(method: request.method, path: path)
            if case .notFound = resolution { continue }
            return resolution
        }
        return .notFound
    }
}
