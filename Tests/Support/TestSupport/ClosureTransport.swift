public import HTTPClient
internal import Synchronization

/// An `HTTPTransport` answering every request from a closure and recording it: the one test transport for
/// a client whose answers a test writes inline (`ScriptedTransport` plays a fixed list instead).
public final class ClosureTransport: HTTPTransport {
    private let requests = Mutex<[HTTPRequest]>([])
    private let handler: @Sendable (HTTPRequest) throws -> HTTPResponse

    public init(_ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) { self.handler = handler }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests.withLock { $0.append(request) }
        return try handler(request)
    }

    /// Every request sent so far, in order.
    public var sent: [HTTPRequest] { requests.withLock { $0 } }
}
