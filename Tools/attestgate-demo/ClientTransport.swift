internal import AttestGateClient
internal import FoundationEssentials
internal import HTTPClient
internal import Synchronization

/// The shipped client's HTTP seam (`AttestGateClient.HTTPTransport`) over the product's libcurl transport,
/// as an app could plug in its own: the head first, then the body piece by piece as it arrives (streamed
/// answers too). It also keeps what it sent, so the demo's attacker can replay a request byte for byte.
struct CurlClientTransport: AttestGateClient.HTTPTransport {
    let curl = CurlTransport()
    let sent = SentRequests()

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        await sent.record(request)
        let stream = ResponseBodyStream(capacity: 1 << 16)
        let head: ResponseBodyStream.Head
        do {
            head = try await curl.open(
                HTTPClient.HTTPRequest(
                    method: request.method,
                    url: request.url,
                    headers: request.headers.map { HTTPClient.HTTPHeader($0.name, $0.value) },
                    body: request.body,
                    timeout: .seconds(Int64(max(1, request.timeout)))
                ),
                into: stream
            )
        } catch {
            throw Self.transportError(error)
        }
        let chunks = AsyncThrowingStream<[UInt8], any Error> { continuation in
            let reader = Task {
                do {
                    while let piece = try await stream.next() { continuation.yield(piece) }
                    continuation.finish()
                } catch {
                    continuation.finish(
                        throwing: TransportError(.connectionLost, stage: .responseStarted, detail: "\(error)")
                    )
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
        return TransportResponse(
            status: head.status,
            headers: head.headers.map { AttestGateClient.HTTPHeader($0.name, $0.value) },
            body: ResponseBody(chunks: chunks, cancel: { stream.cancel() })
        )
    }

    /// libcurl's failure with how far it got (`HTTPError.Stage`): only `notSent` may be sent again.
    static func transportError(_ error: any Error) -> TransportError {
        guard let error = error as? HTTPError else { return TransportError(.failed, stage: .sent, detail: "\(error)") }
        let stage: TransportError.Stage = error.stage == .notSent ? .notSent : .sent
        switch error.reason {
        case .connectFailed, .tlsFailed: return TransportError(.connectFailed, stage: stage, detail: error.description)
        case .timeout: return TransportError(.timeout, stage: stage, detail: error.description)
        case .cancelled: return TransportError(.cancelled, stage: stage, detail: error.description)
        case .invalidURL, .protocolRefused:
            return TransportError(.invalidURL, stage: .notSent, detail: error.description)
        default: return TransportError(.connectionLost, stage: stage, detail: error.description)
        }
    }
}

/// The requests a transport sent, newest last.
actor SentRequests {
    private(set) var requests: [TransportRequest] = []

    func record(_ request: TransportRequest) { requests.append(request) }

    /// The last request to a URL ending in `path`.
    func last(to path: String) -> TransportRequest? { requests.last { $0.url.hasSuffix(path) } }
}

/// What the client reported doing on its own (`ClientEvent`), kept for the session's lines.
final class ClientEvents: Sendable {
    private let events = Mutex<[ClientEvent]>([])

    var handler: @Sendable (ClientEvent) -> Void { { event in self.events.withLock { $0.append(event) } } }
    var all: [ClientEvent] { events.withLock { $0 } }

    /// The binding of the last key registration reported (`bound`, `rebound`, …).
    var lastBinding: String? {
        all.reversed().lazy.compactMap { event -> String? in
            if case .keyRegistered(let binding) = event { return binding }
            return nil
        }.first
    }
}
