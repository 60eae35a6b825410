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
    /// The path as the client sent it (`rawPath` in 2.0, `path` otherwise), without the query.
    package var rawPath: String
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
        self.rawQueryString = rawQueryString
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.requestID = requestID
        self.sourceIP = sourceIP
        self.jwtClaims = jwtClaims
    }
}
