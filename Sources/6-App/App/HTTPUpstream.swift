package import Gate
package import HTTPClient

/// The paid AI API over HTTP: the client's body goes to `UPSTREAM_URL` + the route's `upstreamPath`
/// with the server-held key.
///
/// Outcomes: a provider that answered is `answered` with its status and body, whatever the status (the
/// route's release policy judges 429/503/5xx); a failure says how far the request got, from libcurl's
/// own account (`HTTPError.Stage`): `notSent` only when no request byte was written, `timedOut` or `lost`
/// once it was, `cut` once a response byte arrived. Unknown progress counts as sent, so an unclear
/// failure never gives units back (docs/gate.md, "What is released").
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
        do {
            let response = try await transport.send(request)
            return .answered(
                status: response.status,
                contentType: response.header("content-type"),
                body: response.body
            )
        } catch let error as HTTPError {
            return .failed(Self.failure(error), reason: error.reason.slug)
        } catch {
            return .failed(.lost, reason: "http.failed")
        }
    }

    static func failure(_ error: HTTPError) -> UpstreamFailure {
        if error.reason == .responseTooLarge { return .tooLarge }
        switch error.stage {
        case .notSent: return .notSent
        case .responseStarted: return error.reason == .timeout ? .timedOut : .cut
        case .sent, .unknown: return error.reason == .timeout || error.reason == .cancelled ? .timedOut : .lost
        }
    }
}
