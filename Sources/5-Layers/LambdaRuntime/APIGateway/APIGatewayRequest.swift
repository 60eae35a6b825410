/// An API Gateway request, the same whichever event format carried it.
package struct APIGatewayRequest: Sendable {
    /// The event format, which also decides the response shape.
    package enum Format: Sendable, Hashable {
        /// HTTP API, payload format 2.0.
        case httpV2
        /// HTTP API, payload format 1.0.
        case httpV1
        /// REST API proxy integration.
        case rest
    }

    package var format: Format
    /// Upper-case method (`POST`).
    package var method: String
    /// The path the client actually called, without the query: what request binding compares. `rawPath`
    /// in 2.0 (a named stage's `/{stage}` included), `requestContext.path` in REST and 1.0 events (the
    /// stage included), else `path`.
    package var rawPath: String
    /// The paths to route on, best first: the called path without a named stage's `/{stage}` prefix
    /// (REST's `path`, which API Gateway already stripped), then the called path itself (a custom domain
    /// serves a stage without its segment).
    package var routePaths: [String]
    package var rawQueryString: String
    package var headers: HeaderFields
    /// `cookies` in 2.0; the `Cookie` header split on `;` otherwise.
    package var cookies: [String]
    /// The body, base64-decoded when the event says so.
    package var body: [UInt8]
    /// `requestContext.requestId` (API Gateway's id, not Lambda's).
    package var requestID: String?
    package var sourceIP: String?
    /// `requestContext.authorizer.jwt.claims` (or `authorizer.claims` in 1.0/REST); nil without an
    /// authorizer. Non-string claim values are kept as their JSON text.
    package var jwtClaims: [String: String]?
    /// Filled by the router from `{param}` segments.
    package var pathParameters: [String: String] = [:]
    /// The event came through a Lambda Function URL (`requestContext.domainName` is
    /// `*.lambda-url.<region>.on.aws`). AttestGate's Function URL streams (`RESPONSE_STREAM`), so every
    /// answer to it is posted streamed with the HTTP prelude, refusals included.
    package var viaFunctionURL = false

    package init(
        format: Format,
        method: String,
        rawPath: String,
        routePaths: [String]? = nil,
        rawQueryString: String = "",
        headers: HeaderFields = HeaderFields(),
        cookies: [String] = [],
        body: [UInt8] = [],
        requestID: String? = nil,
        sourceIP: String? = nil,
        jwtClaims: [String: String]? = nil
    ) {
        self.format = format
        self.method = method
        self.rawPath = rawPath
        self.routePaths = routePaths ?? [rawPath]
        self.rawQueryString = rawQueryString
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.requestID = requestID
        self.sourceIP = sourceIP
        self.jwtClaims = jwtClaims
    }
}
