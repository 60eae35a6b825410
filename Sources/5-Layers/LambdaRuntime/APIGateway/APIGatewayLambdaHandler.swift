internal import AttestCore
internal import Synchronization

/// Handles one routed API Gateway request. It never throws: every failure is a response.
package protocol APIRouteHandler: Sendable {
    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse

    /// Whether the route answers events from a Lambda Function URL: only streamed routes do (the URL
    /// exists for them). Every other route is served through the HTTP APIs, whose stage throttle and JWT
    /// authorizer a URL would bypass; through a URL it is `404 not_found`. False unless a handler says so.
    var servedThroughFunctionURL: Bool { get }
}

extension APIRouteHandler {
    package var servedThroughFunctionURL: Bool { false }
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

    /// The buffered equivalent of `respond`: a streamed answer is collected (its status and headers from
    /// the prelude) and encoded as one API Gateway 2.0 response.
    package func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        switch try await respond(to: event, context: context) {
        case .buffered(let bytes):
            return bytes
        case .streamed(let streamed):
            let collector = CollectingStreamWriter()
            _ = await streamed.body(collector)
            let document = (try? JSONValue.parse(Array(streamed.prelude.dropLast(8)))) ?? .object([:])
            var headers = HeaderFields()
            for (name, value) in document["headers"]?.objectValue ?? [:] {
                headers.append(name, value.stringValue ?? "")
            }
            let status = document["statusCode"]?.intValue.map { Int($0) } ?? 200
            return APIGatewayResponse(status: status, headers: headers, body: collector.bytes).encoded(for: .httpV2)
        }
    }

    /// A route that answers with a `stream` is streamed (the prelude carries status and headers);
    /// every other answer, refusals of streamed routes included, is one buffered response, except
    /// through a Function URL, where every answer is a one-chunk stream with the same status and body,
    /// and after the route started its streamed POST (`StreamStart`), which then carries its answer.
    package func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse {
        var request: APIGatewayRequest
        do {
            request = try APIGatewayRequest(event: event)
        } catch {
            context.logger.warning("invalid event", ["reason": .string(error.reason.slug)])
            // The format is unknown; the 2.0 shape is also what REST and 1.0 integrations accept.
            return .buffered(APIGatewayResponse.refused(.invalidRequest).encoded(for: .httpV2))
        }
        let response: APIGatewayResponse
        switch resolve(request) {
        case .matched(let handler, _) where request.viaFunctionURL && !handler.servedThroughFunctionURL:
            response = .refused(.notFound)
        case .matched(let handler, let parameters):
            request.pathParameters = parameters
            response = await handler.handle(request, context: context)
        case .methodNotAllowed(let allowed):
            response = .refused(.methodNotAllowed, headers: ["Allow": allowed.joined(separator: ", ")])
        case .notFound:
            response = .refused(.notFound)
        }
        if let stream = response.stream { return .streamed(response.streamed(stream)) }
        if request.viaFunctionURL || StreamStart.current?.isStarted == true {
            // A RESPONSE_STREAM Function URL passes a buffered payload on raw: give it the prelude. So does a
            // route that started its streamed POST before this answer (`StreamStart`): a failure before the
            // first byte is then a one-chunk stream with its status in the prelude.
            let body = response.body
            return .streamed(
                response.streamed(
                    ResponseStreamBody { writer in
                        do throws(RuntimeAPIError) { try await writer.write(body) } catch {
                            return .failed(FunctionError(type: "Runtime.StreamClosed", message: error.reason.slug))
                        }
                        return .finished
                    }
                )
            )
        }
        return .buffered(response.encoded(for: request.format))
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

/// Keeps every byte written (the buffered `handle` of a streamed answer).
private final class CollectingStreamWriter: ResponseStreamWriter {
    private let collected = Mutex<[UInt8]>([])
    var bytes: [UInt8] { collected.withLock { $0 } }
    func write(_ bytes: [UInt8]) async throws(RuntimeAPIError) { collected.withLock { $0 += bytes } }
}
