internal import Dialects
package import Gate
package import HTTPClient
internal import LambdaRuntime

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
    /// Streamed routes need it to be an `HTTPStreamingTransport` too (`CurlTransport` is); that is
    /// asked at the first streamed call, not at cold start (a dynamic cast searches the conformances).
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
        if route.stream { return await callStreaming(route: route, body: body, timeout: timeout) }
        let request = HTTPRequest(
            method: "POST",
            url: baseURL + route.upstreamPath,
            headers: headers(for: route, accept: "application/json"),
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

    /// The key, the JSON body's type, what the answer may be; and a dialect's required version header
    /// (Anthropic answers 400 to a Messages request without `anthropic-version`).
    private func headers(for route: MeteredRoute, accept: String) -> [HTTPHeader] {
        var headers = [
            HTTPHeader(authHeader, authValue),
            HTTPHeader("Content-Type", "application/json"),
            HTTPHeader("Accept", accept),
        ]
        if route.dialect == .anthropicMessages {
            headers.append(HTTPHeader("anthropic-version", Self.anthropicVersion))
        }
        return headers
    }

    /// The Messages API version the dialect reads (the one Anthropic's documentation uses).
    static let anthropicVersion = "2023-06-01"

    static func failure(_ error: HTTPError) -> UpstreamFailure {
        if error.reason == .responseTooLarge { return .tooLarge }
        switch error.stage {
        case .notSent: return .notSent
        case .responseStarted: return error.reason == .timeout ? .timedOut : .cut
        case .sent, .unknown: return error.reason == .timeout || error.reason == .cancelled ? .timedOut : .lost
        }
    }

    /// A streamed route: the provider is asked for `text/event-stream` and its answer is handed back as
    /// soon as the head arrives. Before the first body byte everything behaves as a buffered call: a
    /// transport failure is `failed` with how far it got, and any answer that is not a 2xx event stream
    /// (429, 5xx, a JSON error) is read whole, within `maxResponseBytes`, and judged by the route's
    /// release policy like a buffered answer. Inside the runtime loop the streamed POST to the Runtime API is
    /// started here (`StreamStart`), so that answer then goes out through it, its status in the prelude.
    private func callStreaming(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        guard let streaming = transport as? any HTTPStreamingTransport else {
            return .failed(.notSent, reason: "http.streaming_unsupported")
        }
        let limit = min(timeout, .seconds(route.maxStreamSeconds))
        let deadline = ContinuousClock.now + limit
        let request = HTTPRequest(
            method: "POST",
            url: baseURL + route.upstreamPath,
            headers: headers(for: route, accept: "text/event-stream"),
            body: body,
            timeout: limit,
            connectTimeout: min(connectTimeout, limit),
            maxResponseBytes: route.maxResponseBytes
        )
        // The reader is this invocation's relay; a stalled one cannot hold the connection past the limit.
        let stream = ResponseBodyStream(capacity: Self.streamBufferBytes, deadline: deadline)
        // The call is admitted and on its way: the streamed POST to the Runtime API starts on the provider
        // request's thread just before that request is sent (not beside its start, where the two compete for
        // the cores), so the POST's head is sent (and read there) while the provider works; whatever
        // follows, a stream or a JSON answer with its status, goes out through it (`StreamStart`; there is
        // none outside the runtime loop). A request that never got that far answers as a buffered call.
        var sending: (@Sendable () -> Void)?
        if let streamStart = StreamStart.current { sending = { streamStart.start() } }
        let head: ResponseBodyStream.Head
        do {
            head = try await streaming.open(request, into: stream, sending: sending)
        } catch let error as HTTPError {
            return .failed(Self.failure(error), reason: error.reason.slug)
        } catch {
            return .failed(.lost, reason: "http.failed")
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
                    return .failed(.tooLarge, reason: HTTPError.Reason.responseTooLarge.slug)
                }
            }
        } catch {
            return .failed(Self.failure(error), reason: error.reason.slug)
        }
        return .answered(status: head.status, contentType: contentType, body: answer)
    }

    /// Bytes of the provider's stream read ahead of the client at most.
    static let streamBufferBytes = 256 * 1024

    private struct EventSource: UpstreamEventSource {
        let stream: ResponseBodyStream

        func next() async throws(UpstreamStreamError) -> [UInt8]? {
            do { return try await stream.next() } catch { throw UpstreamStreamError(error.reason.slug) }
        }

        func cancel() { stream.cancel() }

        func forward(to sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) -> Bool {
            stream.forward(to: sink)
        }

        func forwardingEnded() async -> UpstreamStreamError? {
            await stream.forwardingEnded().map { UpstreamStreamError($0.reason.slug) }
        }
    }
}
