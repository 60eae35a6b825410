internal import CCurl
internal import CShims
internal import Dispatch
internal import Synchronization

/// An `HTTPTransport` that can also stream a body in either direction, with bounded memory.
///
/// - `send(_:streamingBody:)` posts a body written while it is sent (chunked, trailers after the last
///   chunk): the Lambda Runtime API's streamed responses.
/// - `open(_:into:)` returns once the response head is in; the body is then read piece by piece from
///   the `ResponseBodyStream`: the upstream's server-sent events.
public protocol HTTPStreamingTransport: HTTPTransport {
    /// Sends `request` (its `body` is ignored) with the bytes written to `body`, chunked.
    /// - Throws: `HTTPError` when no complete response was received.
    func send(_ request: HTTPRequest, streamingBody body: RequestBodyStream) async throws -> HTTPResponse

    /// Starts sending `request` with the bytes written to `body` now, on the transfer's own thread (no task
    /// in between): its head goes out at once, and the body as it is written. `StartedUpload.response()`
    /// waits for the answer.
    /// - Throws: `HTTPError` when the request is refused before anything is sent (URL policy, headers).
    func start(_ request: HTTPRequest, streamingBody body: RequestBodyStream) throws(HTTPError) -> StartedUpload

    /// Starts `request`; the body arrives in `stream`, which the caller reads to the end or cancels.
    /// `sending` runs once, on the transfer's own thread, when the connection is ready and the request is
    /// about to go out (work that should overlap the server's time without competing with the request's
    /// own start); it does not run when the transfer fails before that.
    /// - Throws: `HTTPError` when the transfer failed before a response head arrived.
    func open(
        _ request: HTTPRequest,
        into stream: ResponseBodyStream,
        sending: (@Sendable () -> Void)?
    ) async throws -> ResponseBodyStream.Head
}

extension HTTPStreamingTransport {
    /// `open(_:into:sending:)` with nothing to run meanwhile.
    public func open(_ request: HTTPRequest, into stream: ResponseBodyStream) async throws -> ResponseBodyStream.Head {
        try await open(request, into: stream, sending: nil)
    }
}

extension CurlTransport: HTTPStreamingTransport {
    public func send(_ request: HTTPRequest, streamingBody body: RequestBodyStream) async throws -> HTTPResponse {
        try await start(request, streamingBody: body).response()
    }

    public func start(_ request: HTTPRequest, streamingBody body: RequestBodyStream) throws(HTTPError) -> StartedUpload
    {
        let target = try URLPolicy.check(request.url)
        try Self.checkHeaders(request.headers)
        // A pooled handle, so the POST goes out on a kept connection (the Runtime API's: one connection
        // for /next and every response, no connect and no new server-side connection per stream). libcurl
        // 7.88 keeps a handle's trailer state after a chunked upload that sent trailers (`trailers_state`
        // stays TRAILERS_DONE; `curl_easy_reset` does not clear it), and the next chunked upload on that
        // handle writes its chunk header before the upload buffer: so the trailer callback is installed
        // only when the body ends with trailers (`UploadContext`), and such a handle is freed, never reused.
        let pool = self.pool
        let handle = pool.take(for: target.origin)
        let context = UploadContext(body: body, curl: handle.raw)
        let caBundlePath = self.caBundlePath
        let upload = StartedUpload(body: body)
        // Straight onto the handle's queue from the caller's thread: the POST's head is on the wire while
        // the caller goes on (a task that awaited the send would be one hand-over more before it starts).
        handle.queue.async {
            let result = Result { () throws(HTTPError) -> HTTPResponse in
                try Self.performUpload(
                    request,
                    context: context,
                    target: target,
                    caBundlePath: caBundlePath,
                    cancellation: upload.cancellation,
                    on: handle
                )
            }
            // A handle that sent trailers is freed here, with its connection (the last reference goes).
            if !context.trailersInstalled { pool.giveBack(handle) }
            switch result {
            case .success: body.close(HTTPError(.failed, detail: "the transfer is over"))
            case .failure(let error): body.close(error)
            }
            upload.complete(result)
        }
        return upload
    }

    public func open(
        _ request: HTTPRequest,
        into stream: ResponseBodyStream,
        sending: (@Sendable () -> Void)?
    ) async throws -> ResponseBodyStream.Head {
        let target = try URLPolicy.check(request.url)
        try Self.checkHeaders(request.headers)
        let pool = self.pool
        let handle = pool.take(for: target.origin)
        let caBundlePath = self.caBundlePath
        handle.queue.async {
            Self.performDownload(
                request,
                into: stream,
                target: target,
                caBundlePath: caBundlePath,
                sending: sending,
                on: handle
            )
            pool.giveBack(handle)
        }
        return try await stream.head()
    }

    /// libcurl's receive buffer for streamed downloads (`CURLOPT_BUFFERSIZE`) and its send buffer for
    /// streamed uploads (`CURLOPT_UPLOAD_BUFFERSIZE`; both 16 / 64 KiB by default). A read or a send takes
    /// whatever is there up to this, so a piece is no later for it: a reader that keeps up still gets
    /// one event per piece, and one that fell behind catches up in a quarter of the pieces (each piece
    /// costs a wake-up and a system call on both sides; docs/performance-archive.md, "Streamed routes").
    static let streamBufferBytes = 256 * 1024

    private static func performUpload(
        _ request: HTTPRequest,
        context: UploadContext,
        target: URLPolicy.Target,
        caBundlePath: String?,
        cancellation: CancellationFlag,
        on handle: CurlEasyHandle
    ) throws(HTTPError) -> HTTPResponse {
        let curl = handle.raw
        let body = context.body
        let transfer = CurlTransfer(maxBodyBytes: request.maxResponseBytes, cancellation: cancellation)
        var lines = headerLines(for: request)
        lines.append("Transfer-Encoding: chunked")
        if !body.trailerNames.isEmpty { lines.append("Trailer: " + body.trailerNames.joined(separator: ", ")) }
        let headerList = CurlStringList(lines)
        configure(curl, request, target: target, caBundlePath: caBundlePath, headers: headerList)
        set(curl, CURLOPT_POST, 1)
        set(curl, CURLOPT_UPLOAD_BUFFERSIZE, streamBufferBytes)
        check(cshim_curl_setopt_read_cb(curl, CurlTransfer.readCallback))
        check(cshim_curl_setopt_ptr(curl, CURLOPT_READDATA, Unmanaged.passUnretained(context).toOpaque()))
        installCallbacks(curl, transfer, write: CurlTransfer.writeCallback)

        let (code, message) = run(curl) {
            withExtendedLifetime((transfer, headerList, context)) { curl_easy_perform(curl) }
        }
        guard code == CURLE_OK else { throw HTTPError.from(code, transfer: transfer, message: message) }
        var status = 0
        check(cshim_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status))
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    private static func performDownload(
        _ request: HTTPRequest,
        into stream: ResponseBodyStream,
        target: URLPolicy.Target,
        caBundlePath: String?,
        sending: (@Sendable () -> Void)?,
        on handle: CurlEasyHandle
    ) {
        let curl = handle.raw
        let transfer = CurlTransfer(maxBodyBytes: Int.max, cancellation: stream.cancellation)
        transfer.stream = stream
        transfer.curl = curl
        let headerList = CurlStringList(headerLines(for: request))
        configure(curl, request, target: target, caBundlePath: caBundlePath, headers: headerList)
        setMethodAndBody(curl, request)
        // One receive takes what the socket holds, up to 256 KiB (libcurl's default is 16 KiB): a fast
        // provider's events reach the reader in a few large pieces; a slow one's still one by one.
        set(curl, CURLOPT_BUFFERSIZE, streamBufferBytes)
        installCallbacks(curl, transfer, write: CurlTransfer.streamWriteCallback)
        if let sending {
            transfer.beforeSend = sending
            check(cshim_curl_setopt_prereq_cb(curl, CurlTransfer.prerequestCallback))
            check(cshim_curl_setopt_ptr(curl, CURLOPT_PREREQDATA, Unmanaged.passUnretained(transfer).toOpaque()))
        }

        let (code, message) = run(curl) { withExtendedLifetime((transfer, headerList)) { curl_easy_perform(curl) } }
        if code == CURLE_OK {
            var status = 0
            check(cshim_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status))
            stream.publish(ResponseBodyStream.Head(status: status, headers: transfer.headers))
            stream.end(nil)
        } else {
            // How far it got decides what a caller may release (HTTPError.Stage), as for buffered calls.
            stream.end(failure(curl, code, transfer: transfer, message: message))
        }
    }
}

/// What a streamed upload's read callback works with: the body, and the handle, on which it installs
/// the trailer callback at the end of a body that has trailers (libcurl reads `CURLOPT_TRAILERFUNCTION`
/// when the read callback has returned 0, to decide whether the last chunk is followed by trailers).
/// Used only on the handle's queue during `curl_easy_perform`; `trailersInstalled` is read after it.
final class UploadContext: @unchecked Sendable {
    let body: RequestBodyStream
    let curl: UnsafeMutableRawPointer
    private(set) var trailersInstalled = false

    init(body: RequestBodyStream, curl: UnsafeMutableRawPointer) {
        self.body = body
        self.curl = curl
    }

    /// The read callback's side: the body's bytes; at its end, the trailer callback when there are trailers.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let count = body.read(into: buffer)
        if count == 0, !trailersInstalled, !body.trailers.isEmpty {
            trailersInstalled = true
            CurlTransport.check(cshim_curl_setopt_trailer_cb(curl, CurlTransfer.trailerCallback))
            CurlTransport.check(
                cshim_curl_setopt_ptr(curl, CURLOPT_TRAILERDATA, Unmanaged.passUnretained(body).toOpaque())
            )
        }
        return count
    }
}

/// An upload `start` set going: `response()` waits for the answer (once).
public final class StartedUpload: Sendable {
    private struct State {
        var result: Result<HTTPResponse, HTTPError>?
        var waiter: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>?
    }

    private let state = Mutex(State())
    private let body: RequestBodyStream
    let cancellation = CancellationFlag()

    init(body: RequestBodyStream) {
        self.body = body
    }

    /// Waits for the answer to the upload. Cancelling the waiting task aborts the transfer within about a
    /// second (libcurl's progress callback) and closes the body, so a blocked writer resumes.
    /// - Throws: `HTTPError` when no complete response was received.
    public func response() async throws(HTTPError) -> HTTPResponse {
        let cancellation = self.cancellation
        let body = self.body
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>) in
                let ready = state.withLock { state -> Result<HTTPResponse, HTTPError>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancellation.cancel()
            body.close(HTTPError(.cancelled, detail: "the sending task was cancelled"))
        }
        return try result.get()
    }

    /// Gives the upload up at `instant` if it is still running then: libcurl's progress callback aborts it
    /// within about a second and the body closes, so a blocked writer resumes (a peer that stopped reading
    /// cannot hold the sender past it).
    public func abandon(at instant: ContinuousClock.Instant) {
        cancellation.cancel(at: instant)
    }

    /// The transfer's own thread: the outcome.
    fileprivate func complete(_ result: Result<HTTPResponse, HTTPError>) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<HTTPResponse, HTTPError>, Never>? in
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: result)
    }
}
