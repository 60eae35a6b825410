/// Sends one HTTP request for the client and returns as soon as the response's head has arrived.
///
/// The library's only network seam: `URLSessionTransport` on devices (and on Linux, where the stack tests
/// run it), a scripted fake in the unit tests, and whatever an app prefers (its own `URLSession`, a proxy).
///
/// Contract:
/// - Any status is a success of the transport; only "no usable response" throws, as `TransportError`.
/// - `TransportError.stage` says whether the request could have reached the server: the client retries
///   only what never left (`.notSent`), since a metered call that arrived may have been served and billed.
/// - The body is read through `TransportResponse.body`, chunk by chunk as it arrives; the transport neither
///   buffers it whole nor follows redirects.
public protocol HTTPTransport: Sendable {
    /// Performs `request` until the response head.
    /// - Throws: `TransportError` when no response head arrived.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

/// One header line; names compare case-insensitively.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether `a` and `b` are the same header name (ASCII case-insensitive).
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}

/// An outbound request.
public struct TransportRequest: Sendable {
    public var method: String
    /// Absolute URL (`https://…`, or `http://` to loopback in development).
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// Seconds without progress after which the transport gives up.
    public var timeout: Double

    public init(method: String, url: String, headers: [HTTPHeader] = [], body: [UInt8] = [], timeout: Double = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The first header named `name`.
    public func header(_ name: String) -> String? {
        headers.first { HTTPHeader.namesMatch($0.name, name) }?.value
    }
}

/// A response head and its body, still arriving.
public struct TransportResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: ResponseBody

    public init(status: Int, headers: [HTTPHeader], body: ResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HTTPHeader.namesMatch($0.name, name) }?.value
    }
}
