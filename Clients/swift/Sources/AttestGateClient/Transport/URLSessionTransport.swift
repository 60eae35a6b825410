#if canImport(FoundationNetworking)
internal import Foundation
public import FoundationNetworking
#else
public import Foundation
#endif

/// `HTTPTransport` over `URLSession` (iOS, macOS, and Linux's Foundation, where the stack tests run it):
/// an ephemeral session (no cookies, no cache), no redirects followed, the body handed on chunk by chunk as
/// it arrives (a streamed answer's events are not held back), through a data delegate so it works from
/// iOS 14 on.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    // @unchecked: both properties are set once in init; URLSession is documented as safe to use from any
    // thread, and the router guards its own state with a lock.
    private let session: URLSession
    private let router: URLSessionTaskRouter

    /// - Parameter configuration: a session configuration; the default is `.ephemeral` with caching and
    ///   cookies off.
    public init(configuration: URLSessionConfiguration? = nil) {
        let configuration = configuration ?? Self.defaultConfiguration()
        let router = URLSessionTaskRouter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "AttestGateClient.URLSessionTransport"
        self.router = router
        session = URLSession(configuration: configuration, delegate: router, delegateQueue: queue)
    }

    deinit { session.finishTasksAndInvalidate() }

    private static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http"
        else { throw TransportError(.invalidURL, stage: .notSent, detail: request.url) }
        var urlRequest = URLRequest(
            url: url,
            cachePolicy: .reloadIgnoringLocalCacheData,
            timeoutInterval: request.timeout
        )
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let task = session.dataTask(with: urlRequest)
        let router = router
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head in
                router.start(task, head: head)
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// The session's delegate: routes each task's head, body chunks and end to the `send` that started it.
final class URLSessionTaskRouter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `transfers` is only touched while holding `lock`.
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    private struct Transfer {
        var head: CheckedContinuation<TransportResponse, any Error>?
        let body: AsyncThrowingStream<[UInt8], any Error>.Continuation
        let chunks: AsyncThrowingStream<[UInt8], any Error>
    }

    func start(_ task: URLSessionDataTask, head: CheckedContinuation<TransportResponse, any Error>) {
        var continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation?
        let chunks = AsyncThrowingStream<[UInt8], any Error>(bufferingPolicy: .unbounded) { continuation = $0 }
        guard let body = continuation else { return }
        body.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        lock.withLock { transfers[task.taskIdentifier] = Transfer(head: head, body: body, chunks: chunks) }
        task.resume()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let transfer: Transfer? = lock.withLock {
            let current = transfers[dataTask.taskIdentifier]
            transfers[dataTask.taskIdentifier]?.head = nil
            return current
        }
        if let transfer, let head = transfer.head {
            var headers: [HTTPHeader] = []
            for (name, value) in http?.allHeaderFields ?? [:] {
                headers.append(HTTPHeader("\(name)", "\(value)"))
            }
            let body = ResponseBody(chunks: transfer.chunks, cancel: { dataTask.cancel() })
            head.resume(returning: TransportResponse(status: http?.statusCode ?? 0, headers: headers, body: body))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let body = lock.withLock { transfers[dataTask.taskIdentifier]?.body }
        body?.yield([UInt8](data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = lock.withLock({ transfers.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = transfer.head {
            head.resume(throwing: Self.transportError(error, headArrived: false))
            transfer.body.finish()
        } else if let error {
            transfer.body.finish(throwing: Self.transportError(error, headArrived: true))
        } else {
            transfer.body.finish()
        }
    }

    /// Redirects are not followed: the 3xx is the answer (the API never redirects).
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A task's error, with how far it got: the codes that fail before a byte of the request is written
    /// are `notSent`; anything else may have reached the server.
    static func transportError(_ error: (any Error)?, headArrived: Bool) -> TransportError {
        let detail = error.map { "\($0)" } ?? "the transfer ended without a response"
        guard let code = (error as? URLError)?.code else {
            return TransportError(.failed, stage: headArrived ? .responseStarted : .sent, detail: detail)
        }
        if headArrived { return TransportError(.connectionLost, stage: .responseStarted, detail: detail) }
        switch code {
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet,
            .internationalRoamingOff, .dataNotAllowed, .secureConnectionFailed, .serverCertificateUntrusted,
            .serverCertificateHasBadDate, .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot,
            .clientCertificateRejected, .clientCertificateRequired, .cannotLoadFromNetwork,
            .appTransportSecurityRequiresSecureConnection:
            return TransportError(.connectFailed, stage: .notSent, detail: detail)
        case .badURL, .unsupportedURL:
            return TransportError(.invalidURL, stage: .notSent, detail: detail)
        case .timedOut:
            return TransportError(.timeout, stage: .sent, detail: detail)
        case .cancelled:
            return TransportError(.cancelled, stage: .sent, detail: detail)
        default:
            return TransportError(.connectionLost, stage: .sent, detail: detail)
        }
    }
}
