public import AttestCore
internal import CCurl
internal import CShims
internal import Dispatch

/// The real `HTTPTransport`: libcurl easy handles, one per in-flight request.
///
/// - Handles come from a small pool and are reused one request after another (`curl_easy_reset`
///   between uses) so keep-alive connections survive; no handle is ever used by two threads.
/// - `curl_easy_perform` runs on the handle's own dispatch queue and resumes a continuation; Swift's
///   cooperative pool never blocks on the network, except in the one task `OwnThreadTransfers` marks (a
///   Lambda invocation's own), whose buffered requests run on its own thread.
/// - Every handle: `CURLOPT_NOSIGNAL`, redirects off, protocols restricted to https (http only to
///   loopback), the system CA bundle, connect and total timeouts from the request, and the response
///   size cap enforced in the write callback.
/// - Cancelling the calling task aborts the transfer within about a second (libcurl's progress
///   callback) and throws `http.cancelled`, so a request abandoned at a deadline frees its handle.
public struct CurlTransport: HTTPTransport {
    let pool: CurlHandlePool
    let caBundlePath: String?

    /// - Parameters:
    ///   - caBundlePath: PEM bundle of trusted CAs; nil finds the system bundle (Debian, Amazon Linux).
    ///   - poolCapacity: how many idle handles (and their connections) are kept between requests.
    public init(caBundlePath: String? = nil, poolCapacity: Int = 4) {
        CurlGlobal.ensureInitialised()
        self.pool = CurlHandlePool(capacity: poolCapacity)
        self.caBundlePath = caBundlePath ?? CAInfo.systemBundlePath()
    }

    /// Calls `curl_global_init` now. `bootstrap` does this first, before any other thread exists.
    public static func globalInit() {
        CurlGlobal.ensureInitialised()
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, adjustedAtStart: { $0 })
    }

    /// The deadline is libcurl's own: the transfer's total timeout is capped, when it starts on its thread, by
    /// what is left of the deadline, so no timer or extra task runs beside it, and the answer resumes the
    /// caller straight from the transfer's thread. A deadline already passed at the start sends nothing.
    /// A timeout is the deadline's (nil) when the deadline was the tighter limit or has passed: libcurl's timer
    /// counts whole milliseconds and can fire up to one early, so "has passed" alone is not enough.
    public func send(_ request: HTTPRequest, before deadline: Deadline) async -> Result<HTTPResponse, any Error>? {
        let deadlineIsTighter = request.timeout.map { $0 >= deadline.remaining } ?? true
        do {
            return .success(
                try await send(
                    request,
                    adjustedAtStart: { request throws(HTTPError) in
                        var bounded = request
                        let left = deadline.remaining
                        guard left > .zero else {
                            throw HTTPError(.timeout, detail: "the deadline passed before the start")
                        }
                        // Rounded up to the next whole millisecond: libcurl's unit, and `configure` rounds down.
                        bounded.timeout = min(request.timeout ?? left, left + .nanoseconds(999_999))
                        return bounded
                    }
                )
            )
        } catch let error as HTTPError
            where error.reason == .timeout && (deadlineIsTighter || deadline.remaining <= .zero)
        {
            return nil
        } catch {
            return .failure(error)
        }
    }

    /// Both sends: URL policy and headers checked, a pooled handle, one blocking transfer on its queue.
    /// `adjustedAtStart` runs on the handle's thread just before the transfer (it may refuse by throwing).
    private func send(
        _ request: HTTPRequest,
        adjustedAtStart adjust: @escaping @Sendable (HTTPRequest) throws(HTTPError) -> HTTPRequest
    ) async throws -> HTTPResponse {
        let target = try URLPolicy.check(request.url)
        try Self.checkHeaders(request.headers)
        if Task.isCancelled { throw HTTPError(.cancelled, detail: "cancelled before the request started") }
        let handle = pool.take(for: target.origin)
        defer { pool.giveBack(handle) }
        let caBundlePath = self.caBundlePath
        return try await Self.transfer(on: handle) { cancellation throws(HTTPError) in
            try Self.perform(
                try adjust(request),
                target: target,
                caBundlePath: caBundlePath,
                cancellation: cancellation,
                on: handle
            )
        }
    }

    /// Runs one blocking transfer on `handle`'s own queue and resumes the caller with its result; cancelling
    /// the caller sets the flag the transfer's progress callback reads (and runs `onCancel`).
    static func transfer(
        on handle: CurlEasyHandle,
        onCancel: @escaping @Sendable () -> Void = {},
        _ work: @escaping @Sendable (CancellationFlag) throws(HTTPError) -> HTTPResponse
    ) async throws -> HTTPResponse {
        let cancellation = CancellationFlag()
        if OwnThreadTransfers.currentTaskIsOwner {
            // On this thread: no queue thread to wake, none to wake this task again after.
            return try await withTaskCancellationHandler {
                try work(cancellation)
            } onCancel: {
                cancellation.cancel()
                onCancel()
            }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                handle.queue.async {
                    continuation.resume(with: Result { () throws(HTTPError) -> HTTPResponse in try work(cancellation) })
                }
            }
        } onCancel: {
            cancellation.cancel()
            onCancel()
        }
    }

    /// The options every transfer shares: URL policy, TLS trust, timeouts, headers.
    static func configure(
        _ curl: UnsafeMutableRawPointer,
        _ request: HTTPRequest,
        target: URLPolicy.Target,
        caBundlePath: String?,
        headers: CurlStringList
    ) {
        set(curl, CURLOPT_NOSIGNAL, 1)
        set(curl, CURLOPT_FOLLOWLOCATION, 0)
        setString(curl, CURLOPT_URL, request.url)
        setProtocols(curl, target.allowedProtocols)
        if target.scheme == "https", let caBundlePath { setString(curl, CURLOPT_CAINFO, caBundlePath) }
        set(curl, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout))
        set(curl, CURLOPT_TIMEOUT_MS, request.timeout.map(milliseconds) ?? 0)
        check(cshim_curl_setopt_ptr(curl, CURLOPT_HTTPHEADER, headers.raw))
    }

    /// The response callbacks (`write` for the body; headers and progress as always) with `transfer` as their
    /// context; the caller keeps `transfer` alive for the whole `curl_easy_perform`.
    static func installCallbacks(
        _ curl: UnsafeMutableRawPointer,
        _ transfer: CurlTransfer,
        write: cshim_curl_data_cb
    ) {
        check(cshim_curl_setopt_write_cb(curl, write))
        check(cshim_curl_setopt_header_cb(curl, CurlTransfer.headerCallback))
        check(cshim_curl_setopt_xferinfo_cb(curl, CurlTransfer.progressCallback))
        set(curl, CURLOPT_NOPROGRESS, 0)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        check(cshim_curl_setopt_ptr(curl, CURLOPT_WRITEDATA, context))
        check(cshim_curl_setopt_ptr(curl, CURLOPT_HEADERDATA, context))
        check(cshim_curl_setopt_ptr(curl, CURLOPT_XFERINFODATA, context))
    }

    /// Runs `perform` with libcurl's error buffer set, and returns its code and message.
    static func run(_ curl: UnsafeMutableRawPointer, _ perform: () -> CURLcode) -> (CURLcode, String) {
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return errorBuffer.withUnsafeMutableBufferPointer { buffer in
            check(cshim_curl_setopt_ptr(curl, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            let code = perform()
            // The buffer is only valid inside this closure: unset it before it goes away.
            check(cshim_curl_setopt_ptr(curl, CURLOPT_ERRORBUFFER, nil))
            return (code, String(cString: buffer.baseAddress!))
        }
    }

    /// A failed transfer as an `HTTPError` that says how far the request got (`HTTPError.Stage`), read from
    /// libcurl's own account: what a caller may release depends on it.
    static func failure(
        _ curl: UnsafeMutableRawPointer,
        _ code: CURLcode,
        transfer: CurlTransfer,
        message: String
    ) -> HTTPError {
        var requestBytes = 0
        var pretransfer: curl_off_t = 0
        check(cshim_curl_getinfo_long(curl, CURLINFO_REQUEST_SIZE, &requestBytes))
        check(cshim_curl_getinfo_off_t(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer))
        return HTTPError.from(
            code,
            transfer: transfer,
            message: message,
            requestBytes: requestBytes,
            pretransferMicros: Int64(pretransfer)
        )
    }

    /// Configures `handle` for `request` and runs it; blocking, so only ever called on the handle's queue.
    private static func perform(
        _ request: HTTPRequest,
        target: URLPolicy.Target,
        caBundlePath: String?,
        cancellation: CancellationFlag,
        on handle: CurlEasyHandle
    ) throws(HTTPError) -> HTTPResponse {
        let curl = handle.raw
        let transfer = CurlTransfer(maxBodyBytes: request.maxResponseBytes, cancellation: cancellation)
        let headerList = CurlStringList(headerLines(for: request))
        configure(curl, request, target: target, caBundlePath: caBundlePath, headers: headerList)
        check(cshim_curl_setopt_off_t(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes)))
        setMethodAndBody(curl, request)
        installCallbacks(curl, transfer, write: CurlTransfer.writeCallback)

        let (code, message) = run(curl) { withExtendedLifetime((transfer, headerList)) { curl_easy_perform(curl) } }
        guard code == CURLE_OK else { throw failure(curl, code, transfer: transfer, message: message) }

        var status = 0
        check(cshim_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status))
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    /// Header names and values go to the wire verbatim: CR, LF or NUL would split or forge lines.
    static func checkHeaders(_ headers: [HTTPHeader]) throws(HTTPError) {
        for header in headers {
            let forbidden: (UInt8) -> Bool = { $0 == 0x0d || $0 == 0x0a || $0 == 0 }
            let nameOK =
                !header.name.isEmpty && !header.name.utf8.contains { forbidden($0) || $0 == 0x3a || $0 == 0x20 }
            guard nameOK, !header.value.utf8.contains(where: forbidden) else {
                throw HTTPError(.invalidHeader, detail: "header name or value with a forbidden byte")
            }
        }
    }

    static func headerLines(for request: HTTPRequest) -> [String] {
        var lines = request.headers.map { $0.name + ": " + $0.value }
        let has: (String) -> Bool = { name in request.headers.contains { HTTPHeader.namesMatch($0.name, name) } }
        // Suppress libcurl's own defaults: no `Expect: 100-continue` round trip, and no
        // `application/x-www-form-urlencoded` label on bodies we did not label ourselves.
        if !has("expect") { lines.append("Expect:") }
        if !has("content-type") { lines.append("Content-Type:") }
        return lines
    }

    static func setMethodAndBody(_ curl: UnsafeMutableRawPointer, _ request: HTTPRequest) {
        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty:
            set(curl, CURLOPT_HTTPGET, 1)
        case "HEAD":
            set(curl, CURLOPT_NOBODY, 1)
        default:
            // POSTFIELDS is the one string option libcurl does not copy; COPYPOSTFIELDS does, after
            // POSTFIELDSIZE_LARGE says how many bytes (so a body may contain NUL bytes).
            check(cshim_curl_setopt_off_t(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            request.body.withUnsafeBytes { bytes in
                let empty: [UInt8] = [0]
                empty.withUnsafeBytes { fallback in
                    let pointer = bytes.count == 0 ? fallback.baseAddress : bytes.baseAddress
                    check(cshim_curl_setopt_ptr(curl, CURLOPT_COPYPOSTFIELDS, pointer))
                }
            }
            if method != "POST" { setString(curl, CURLOPT_CUSTOMREQUEST, method) }
        }
    }

    /// `CURLOPT_PROTOCOLS_STR` needs libcurl 7.85; older libraries (Amazon Linux 2's) get the bitmask.
    static func setProtocols(_ curl: UnsafeMutableRawPointer, _ protocols: String) {
        let rc = protocols.withCString { cshim_curl_setopt_ptr(curl, CURLOPT_PROTOCOLS_STR, $0) }
        let redirect = protocols.withCString { cshim_curl_setopt_ptr(curl, CURLOPT_REDIR_PROTOCOLS_STR, $0) }
        if rc == CURLE_UNKNOWN_OPTION || redirect == CURLE_UNKNOWN_OPTION {
            let mask = protocols == "http" ? Int(CURLPROTO_HTTP) : Int(CURLPROTO_HTTPS)
            set(curl, CURLOPT_PROTOCOLS, mask)
            set(curl, CURLOPT_REDIR_PROTOCOLS, mask)
        } else {
            check(rc)
            check(redirect)
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        // 0 means "no timeout" to libcurl; a zero or negative budget must still time out at once.
        return max(1, Int(clamping: total))
    }

    static func set(_ curl: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) {
        check(cshim_curl_setopt_long(curl, option, value))
    }

    static func setString(_ curl: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
        // String options are copied by libcurl (since 7.17.0), so the pointer may go away afterwards.
        check(value.withCString { cshim_curl_setopt_ptr(curl, option, $0) })
    }

    /// A failing setopt/getinfo is a programmer error (unknown option, wrong type), not a network
    /// failure: stop loudly, as NIO does for errnos that must not happen.
    static func check(_ code: CURLcode, _ operation: StaticString = #function) {
        precondition(code == CURLE_OK, "libcurl \(operation) failed: \(code.rawValue)")
    }
}
