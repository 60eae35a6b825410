internal import CCurl
internal import CShims
internal import Dispatch

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

    /// Starts `request`; the body arrives in `stream`, which the caller reads to the end or cancels.
    /// - Throws: `HTTPError` when the transfer failed before a response head arrived.
    func open(_ request: HTTPRequest, into stream: ResponseBodyStream) async throws -> ResponseBodyStream.Head
}

extension CurlTransport: HTTPStreamingTransport {
    public func send(_ request: HTTPRequest, streamingBody body: RequestBodyStream) async throws -> HTTPResponse {
        let target = try URLPolicy.check(request.url)
        try Self.checkHeaders(request.headers)
        // A handle of its own, freed afterwards: libcurl 7.88 keeps per-handle trailer state that
        // `curl_easy_reset` does not clear, and a pooled handle reused after a chunked upload with a
        // trailer callback corrupts the heap on a later transfer (seen on the third streamed response).
        let handle = CurlEasyHandle()
        let caBundlePath = self.caBundlePath
        do {
            let response = try await Self.transfer(
                on: handle,
                onCancel: { body.close(HTTPError(.cancelled, detail: "the sending task was cancelled")) },
                { cancellation throws(HTTPError) in
                    try Self.performUpload(
                        request,
                        body: body,
                        target: target,
                        caBundlePath: caBundlePath,
                        cancellation: cancellation,
                        on: handle
                    )
                }
            )
            body.close(HTTPError(.failed, detail: "the transfer is over"))
            return response
        } catch let error as HTTPError {
            body.close(error)
            throw error
        }
    }

    public func open(_ request: HTTPRequest, into stream: ResponseBodyStream) async throws -> ResponseBodyStream.Head {
        let target = try URLPolicy.check(request.url)
        try Self.checkHeaders(request.headers)
        let pool = self.pool
        let handle = pool.take()
        let caBundlePath = self.caBundlePath
        handle.queue.async {
            Self.performDownload(request, into: stream, target: target, caBundlePath: caBundlePath, on: handle)
            pool.giveBack(handle)
        }
        return try await stream.head()
    }

    /// libcurl's receive buffer for streamed downloads (`CURLOPT_BUFFERSIZE`).
    static let streamReceiveBufferBytes = 64 * 1024

    private static func performUpload(
        _ request: HTTPRequest,
        body: RequestBodyStream,
        target: URLPolicy.Target,
        caBundlePath: String?,
        cancellation: CancellationFlag,
        on handle: CurlEasyHandle
    ) throws(HTTPError) -> HTTPResponse {
        let curl = handle.raw
        let transfer = CurlTransfer(maxBodyBytes: request.maxResponseBytes, cancellation: cancellation)
        var lines = headerLines(for: request)
        lines.append("Transfer-Encoding: chunked")
        if !body.trailerNames.isEmpty { lines.append("Trailer: " + body.trailerNames.joined(separator: ", ")) }
        let headerList = CurlStringList(lines)
        configure(curl, request, target: target, caBundlePath: caBundlePath, headers: headerList)
        set(curl, CURLOPT_POST, 1)
        check(cshim_curl_setopt_read_cb(curl, CurlTransfer.readCallback))
        let source = Unmanaged.passUnretained(body).toOpaque()
        check(cshim_curl_setopt_ptr(curl, CURLOPT_READDATA, source))
        if !body.trailerNames.isEmpty {
            check(cshim_curl_setopt_trailer_cb(curl, CurlTransfer.trailerCallback))
            check(cshim_curl_setopt_ptr(curl, CURLOPT_TRAILERDATA, source))
        }
        installCallbacks(curl, transfer, write: CurlTransfer.writeCallback)

        let (code, message) = run(curl) {
            withExtendedLifetime((transfer, headerList, body)) { curl_easy_perform(curl) }
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
        on handle: CurlEasyHandle
    ) {
        let curl = handle.raw
        let transfer = CurlTransfer(maxBodyBytes: Int.max, cancellation: stream.cancellation)
        transfer.stream = stream
        transfer.curl = curl
        let headerList = CurlStringList(headerLines(for: request))
        configure(curl, request, target: target, caBundlePath: caBundlePath, headers: headerList)
        setMethodAndBody(curl, request)
        // One receive takes what the socket holds, up to 64 KiB (libcurl's default is 16 KiB): a fast
        // provider's events reach the reader in a few large pieces; a slow one's still one by one.
        set(curl, CURLOPT_BUFFERSIZE, streamReceiveBufferBytes)
        installCallbacks(curl, transfer, write: CurlTransfer.streamWriteCallback)

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
