internal import CCurl
internal import CShims
internal import Synchronization

/// Set from any thread when the calling task is cancelled, or given a time after which the transfer is
/// given up (`cancel(at:)`); read by the progress callback.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)
    /// Nanoseconds after `origin` from which the flag reads as set; `Int64.max`: never.
    private let deadline = Atomic<Int64>(.max)
    private static let origin = ContinuousClock.now

    func cancel() { value.store(true, ordering: .sequentiallyConsistent) }

    /// The flag reads as set from `instant` on (the progress callback sees it within about a second).
    func cancel(at instant: ContinuousClock.Instant) {
        deadline.store(Self.nanoseconds(instant), ordering: .sequentiallyConsistent)
    }

    var isCancelled: Bool {
        if value.load(ordering: .sequentiallyConsistent) { return true }
        let deadline = deadline.load(ordering: .relaxed)
        return deadline != .max && Self.nanoseconds(.now) >= deadline
    }

    private static func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - origin).components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max - 1 }
        return scaled + attoseconds / 1_000_000_000
    }
}

/// What one transfer collects while libcurl runs it; reached from the C callbacks through `userdata`.
///
/// Used only on the handle's queue during `curl_easy_perform`; the callbacks copy bytes out and never
/// keep libcurl's pointers.
final class CurlTransfer {
    let maxBodyBytes: Int
    /// Response header bytes are bounded too, so a server cannot grow memory through headers.
    let maxHeaderBytes: Int
    let cancellation: CancellationFlag
    var body: [UInt8] = []
    /// Response headers of the final response (interim `100 Continue` blocks are discarded), parsed as
    /// each line arrives. Names and values are trimmed of ASCII whitespace (HTTP's optional whitespace,
    /// and the line's CRLF), on bytes; a line without a colon or a name is dropped.
    private(set) var headers: [HTTPHeader] = []
    var headerBytes = 0
    var bodyTooLarge = false
    var headersTooLarge = false
    /// Streamed responses: where the head and the body go as they arrive (`CurlTransport.open`).
    var stream: ResponseBodyStream?
    var curl: UnsafeMutableRawPointer?
    /// Runs once, on the handle's thread, when the request is about to be sent (`prerequestCallback`).
    var beforeSend: (@Sendable () -> Void)?

    init(maxBodyBytes: Int, maxHeaderBytes: Int = 64 * 1024, cancellation: CancellationFlag = CancellationFlag()) {
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.cancellation = cancellation
    }

    /// One header line's name and value, nil for a line without a colon or a name.
    static func header(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPHeader? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let name = Self.trimmed(UnsafeBufferPointer(rebasing: bytes[..<colon]))
        guard !name.isEmpty else { return nil }
        let value = Self.trimmed(UnsafeBufferPointer(rebasing: bytes[(colon + 1)...]))
        return HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private static let statusLinePrefix = Array("HTTP/".utf8)

    /// `bytes` without leading and trailing ASCII whitespace (space, tab, CR, LF, VT, FF).
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0d).contains($0) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else {
            return UnsafeBufferPointer(rebasing: bytes[0..<0])
        }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return UnsafeBufferPointer(rebasing: bytes[first...last])
    }

    /// `CURLOPT_WRITEFUNCTION`: appends body bytes; returning anything but `size * nmemb` aborts the
    /// transfer with `CURLE_WRITE_ERROR`, which is how the size cap is enforced while data arrives.
    static let writeCallback: cshim_curl_data_cb = { pointer, size, count, userdata in
        guard let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.maxBodyBytes else {
            transfer.bodyTooLarge = true
            return 0
        }
        pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
            transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
        return length
    }

    /// `CURLOPT_XFERINFOFUNCTION`: libcurl calls it at least once a second, idle or not; a non-zero
    /// return aborts the transfer (`CURLE_ABORTED_BY_CALLBACK`) once the calling task is cancelled.
    static let progressCallback: cshim_curl_xferinfo_cb = { userdata, _, _, _, _ in
        guard let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        return transfer.cancellation.isCancelled ? 1 : 0
    }

    /// `CURLOPT_PREREQFUNCTION`: the connection is ready and the request goes out when this returns; runs
    /// `beforeSend` the first time (libcurl calls it again when it retries on a fresh connection).
    static let prerequestCallback: cshim_curl_prereq_cb = { userdata, _, _, _, _ in
        guard let userdata else { return Int32(CURL_PREREQFUNC_OK) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        let beforeSend = transfer.beforeSend
        transfer.beforeSend = nil
        beforeSend?()
        return Int32(CURL_PREREQFUNC_OK)
    }

    /// `CURLOPT_HEADERFUNCTION`: one call per header line, status lines included.
    static let headerCallback: cshim_curl_data_cb = { pointer, size, count, userdata in
        guard let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        transfer.headerBytes += length
        guard transfer.headerBytes <= transfer.maxHeaderBytes else {
            transfer.headersTooLarge = true
            return 0
        }
        // On the line's bytes: no String for the line, and no Character-wise prefix check.
        let blank = pointer.withMemoryRebound(to: UInt8.self, capacity: length) { start -> Bool in
            let bytes = UnsafeBufferPointer(start: start, count: length)
            if bytes.starts(with: CurlTransfer.statusLinePrefix) {
                transfer.headers.removeAll(keepingCapacity: true)  // a new response starts (after 1xx)
                return false
            }
            if CurlTransfer.trimmed(bytes).isEmpty { return true }
            if let header = CurlTransfer.header(bytes) {
                if transfer.headers.isEmpty { transfer.headers.reserveCapacity(16) }
                transfer.headers.append(header)
            }
            return false
        }
        if blank, let stream = transfer.stream, let curl = transfer.curl {
            // The blank line after a final (non-1xx) status: the head is complete before any body byte.
            var status = 0
            if cshim_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK, status >= 200 {
                stream.publish(ResponseBodyStream.Head(status: status, headers: transfer.headers))
            }
        }
        return length
    }

    /// `CURLOPT_WRITEFUNCTION` for streamed responses: hands a copy to the stream, which blocks while
    /// its reader is behind; 0 (abort) once the stream is cancelled.
    static let streamWriteCallback: cshim_curl_data_cb = { pointer, size, count, userdata in
        guard let userdata else { return 0 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        let length = size * count
        guard let stream = transfer.stream else { return 0 }
        return stream.push(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
    }

    /// `CURLOPT_READFUNCTION` for streamed request bodies (userdata: the upload's `UploadContext`).
    static let readCallback: cshim_curl_data_cb = { pointer, size, count, userdata in
        guard let userdata else { return Int(CURL_READFUNC_ABORT) }
        let context = Unmanaged<UploadContext>.fromOpaque(userdata).takeUnretainedValue()
        let copied = context.read(into: UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
        return copied < 0 ? Int(CURL_READFUNC_ABORT) : copied
    }

    /// `CURLOPT_TRAILERFUNCTION`: the trailers given to `RequestBodyStream.finish`, after the last chunk.
    static let trailerCallback: cshim_curl_trailer_cb = { list, userdata in
        guard let userdata else { return Int32(CURL_TRAILERFUNC_ABORT) }
        let body = Unmanaged<RequestBodyStream>.fromOpaque(userdata).takeUnretainedValue()
        for trailer in body.trailers {
            let line = "\(trailer.name): \(trailer.value)"
            guard !line.utf8.contains(where: { $0 == 0x0d || $0 == 0x0a || $0 == 0 }) else { continue }
            guard let appended = curl_slist_append(list.pointee, line) else { return Int32(CURL_TRAILERFUNC_ABORT) }
            list.pointee = appended
        }
        return Int32(CURL_TRAILERFUNC_OK)
    }
}
