internal import CCurl
internal import Dispatch

/// The one Swift owner of a libcurl easy handle (`curl_easy_cleanup` in `deinit`).
///
/// `@unchecked Sendable`: a handle is only ever used by one request at a time ("never share the same
/// handle in multiple threads", `libcurl-thread(3)`); ownership moves between requests through
/// `CurlHandlePool`'s mutex, and every use happens on the handle's own serial queue.
final class CurlEasyHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer
    /// A serial queue per handle: `curl_easy_perform` blocks, so it runs here and never on Swift's
    /// cooperative pool. Serial queues target libdispatch's overcommit root queue, so a blocked perform
    /// gets its own thread instead of starving other work.
    let queue: DispatchQueue
    /// The origin (`URLPolicy.Target.origin`) of the last request this handle served: its connection
    /// cache holds a connection there. Only read and written by the request that owns the handle, or
    /// under `CurlHandlePool`'s mutex.
    var origin = ""

    init() {
        CurlGlobal.ensureInitialised()
        guard let raw = curl_easy_init() else {
            // Only fails when out of memory; nothing sensible can continue.
            fatalError("curl_easy_init failed")
        }
        self.raw = raw
        self.queue = DispatchQueue(label: "attestgate.curl")
    }

    /// Returns the handle to its freshly-created state while keeping its live connections, DNS and
    /// TLS session caches (`curl_easy_reset(3)`), so the next request can reuse a connection.
    func reset() {
        curl_easy_reset(raw)
    }

    deinit {
        curl_easy_cleanup(raw)
    }
}
