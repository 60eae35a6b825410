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
    /// The same transport when it can stream (`CurlTransport` can); streamed routes need it.
    private let streaming: (any HTTPStreamingTransport)?
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
        self.streaming = transport as? any HTTPStreamingTransport
        self.connectTimeout = connectTimeout
    }

    package func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        if route.stream { return await callStreaming(route: route, body: body, timeout: timeout) }
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
            return .notAnswered(timedOut: false, reason: "http.failed")
        }
        if response.status == 429 || response.status >= 500 {
            return .notAnswered(timedOut: false, reason: "upstream.status_\(response.status)")
        }
        return .answered(status: response.status, contentType: response.header("content-type"), body: response.body)
    }

    /// A streamed route: the provider is asked for `text/event-stream` and its answer is handed back as
    /// soon as the head arrives. Before the first body byte everything behaves as a buffered call
    /// (timeout, connection failure, 429 and 5xx are `notAnswered`; any other answer that is not an
    /// event stream is read whole, within `maxResponseBytes`, and passed on as it is).
    private func callStreaming(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        guard let streaming else { return .notAnswered(timedOut: false, reason: "http.streaming_unsupported") }
        let limit = min(timeout, .seconds(route.maxStreamSeconds))
        let deadline = ContinuousClock.now + limit
        let request = HTTPRequest(
            method: "POST",
            url: baseURL + route.upstreamPath,
            headers: [
                HTTPHeader(authHeader, authValue),
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Accept", "text/event-stream"),
            ],
            body: body,
            timeout: limit,
            connectTimeout: min(connectTimeout, limit),
            maxResponseBytes: route.maxResponseBytes
        )
        // The reader is this invocation's relay; a stalled one cannot hold the connection past the limit.
        let stream = ResponseBodyStream(capacity: Self.streamBufferBytes, deadline: deadline)
        let head: ResponseBodyStream.Head
        do {
            head = try await streaming.open(request, into: stream)
        } catch let error as HTTPError {
            return .notAnswered(timedOut: error.reason == .timeout, reason: error.reason.slug)
        } catch {
            return .notAnswered(timedOut: false, reason: "http.failed")
        }
        if head.status == 429 || head.status >= 500 {
            stream.cancel()
            return .notAnswered(timedOut: false, reason: "upstream.status_\(head.status)")
        }
        let contentType = head.header("content-type")
        let isEventStream = contentType?.lowercased().hasPrefix("text/event-stream") ?? false
        if (200..<300).contains(head.status), isEventStream {
            let source = EventSource(stream: stream)
            return .streaming(
                status: head.status,
                contentType: contentType,
                body: UpstreamStream(source: source, deadline: deadline, maxBytes: route.maxStreamBytes)
            )
        }
        var answer: [UInt8] = []
        do {
            while let piece = try await stream.next() {
                answer += piece
                guard answer.count <= route.maxResponseBytes else {
                    stream.cancel()
                    return .answered(
                        status: 502,
                        contentType: "application/json",
                        body: Array(#"{"error":"upstream_unavailable"}"#.utf8)
                    )
                }
            }
        } catch {
            return .notAnswered(timedOut: error.reason == .timeout, reason: error.reason.slug)
        }
        return .answered(status: head.status, contentType: contentType, body: answer)
    }

    /// Bytes of the provider's stream read ahead of the client at most.
    static let streamBufferBytes = 64 * 1024

    private struct EventSource: UpstreamEventSource {
        let stream: ResponseBodyStream

        func next() async throws(UpstreamStreamError) -> [UInt8]? {
            do { return try await stream.next() } catch { throw UpstreamStreamError(error.reason.slug) }
        }

        func cancel() { stream.cancel() }
    }
}
