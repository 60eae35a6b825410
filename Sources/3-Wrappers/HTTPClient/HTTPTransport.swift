public import AttestCore

/// Sends one HTTP request and returns the whole response.
///
/// Every outbound call in the product (DynamoDB, Secrets Manager, Google, Apple, the upstream AI API and
/// the Lambda Runtime API) goes through this protocol, so tests can substitute a fake and the real
/// implementation (`CurlTransport`, over libcurl) stays in one place.
///
/// Contract:
/// - A response with any status code is a success of the transport; only "no usable response" throws.
/// - The implementation enforces `request.timeout` (total time) and `request.maxResponseBytes`.
/// - Failures throw `HTTPError` with a bounded `reason` (`http.timeout`, `http.connect_failed`, …).
/// - Implementations never block Swift's cooperative thread pool.
public protocol HTTPTransport: Sendable {
    /// Performs `request`.
    /// - Throws: `HTTPError` when no complete response was received.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Performs `request`, but answers no later than `deadline`.
    /// - Returns: the response or the transport's error; nil when the deadline passed first.
    func send(_ request: HTTPRequest, before deadline: Deadline) async -> Result<HTTPResponse, any Error>?
}

extension HTTPTransport {
    /// Races `send(_:)` against the deadline (`DeadlineRace`).
    public func send(_ request: HTTPRequest, before deadline: Deadline) async -> Result<HTTPResponse, any Error>? {
        await DeadlineRace.send(request, through: self, deadline: deadline)
    }
}

/// One header line. Names compare case-insensitively wherever they are looked up.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Whether two header names are the same name: equal but for ASCII case (no allocation).
    public static func namesMatch(_ a: String, _ b: String) -> Bool {
        var a = a.utf8.makeIterator()
        var b = b.utf8.makeIterator()
        while true {
            switch (a.next(), b.next()) {
            case (nil, nil): return true
            case (let x?, let y?) where x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7a):
                continue
            default: return false
            }
        }
    }
}

/// An outbound HTTP request.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// Total time allowed, connection included; nil means none (the Runtime API's long poll only).
    public var timeout: Duration?
    /// Time allowed to establish the connection.
    public var connectTimeout: Duration
    /// The largest response body accepted; a larger one fails with `http.response_too_large`.
    public var maxResponseBytes: Int

    public init(
        method: String,
        url: String,
        headers: [HTTPHeader] = [],
        body: [UInt8] = [],
        timeout: Duration? = .seconds(10),
        connectTimeout: Duration = .seconds(2),
        maxResponseBytes: Int = 1 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}

/// A complete HTTP response.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HTTPHeader.namesMatch($0.name, name) }?.value
    }
}
