package import Gate
package import HTTPClient

/// The paid AI API over HTTP: the client's body goes to `UPSTREAM_URL` + the route's `upstreamPath`
/// with the server-held key.
///
/// Outcomes (design.md section 7): a provider that answered is passed on, status and body; a timeout,
/// a connection failure, 429 or 5xx is `notAnswered` (not billed: the caller releases its units and
/// answers 504 or 502 `upstream_unavailable`).
package struct HTTPUpstream: UpstreamCalling {
    private let baseURL: String
    private let authHeader: String
    private let authValue: String
    private let transport: any HTTPTransport
    private let connectTimeout: Duration

    /// - Parameters:
    ///   - key: the API key; sent as `Bearer <key>` when `authHeader` is `Authorization`, else as is.
    package init(
        baseURL: String,
        authHeader: String,
        key: String,
        transport: any HTTPTransport,
        connectTimeout: Duration = .seconds(2)
    ) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.authHeader = authHeader
        self.authValue = authHeader.lowercased() == "authorization" ? "Bearer \(key)" : key
        self.transport = transport
        self.connectTimeout = connectTimeout
    }

    package func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        let request = HTTPRequest(
            method: "POST",
            url: baseURL + route.upstreamPath,
            headers: [
                HTTPHeader(authHeader, authValue),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: body,
            timeout: timeout,
            connectTimeout: min(connectTimeout, timeout),
            maxResponseBytes: route.maxResponseBytes
        )
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch let error as HTTPError {
            if error.reason == .responseTooLarge {
                // The provider did the work (and billed it); only its answer is too big to pass on,
                // so the units stay spent and the client gets the same refusal shape.
                return .answered(
                    status: 502,
                    contentType: "application/json",
                    body: Array(#"{"error":"upstream_unavailable"}"#.utf8)
                )
            }
            return .notAnswered(timedOut: error.reason == .timeout, reason: error.reason.slug)
        } catch {
            return .notAnswered(timedOut: false, reason: HTTPError.Reason.failed.slug)
        }
        if response.status == 429 || response.status >= 500 {
            return .notAnswered(timedOut: false, reason: "upstream.status_\(response.status)")
        }
        return .answered(status: response.status, contentType: response.header("content-type"), body: response.body)
    }
}
