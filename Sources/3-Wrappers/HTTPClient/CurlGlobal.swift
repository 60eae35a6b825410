internal import CCurl

/// libcurl's process-wide initialisation, done exactly once.
///
/// `curl_global_init` must run before any thread uses libcurl (`libcurl-thread(3)`); `bootstrap` calls
/// `CurlTransport.globalInit()` as its first line and every transport calls it again (a no-op) so tests
/// and the CLI are covered too. `curl_global_cleanup` is never called: Lambda freezes and thaws the
/// process instead of exiting it.
enum CurlGlobal {
    /// Swift initialises globals once, thread-safely, on first use.
    private static let result: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Runs `curl_global_init(CURL_GLOBAL_DEFAULT)` the first time; later calls do nothing.
    static func ensureInitialised() {
        precondition(result == CURLE_OK, "curl_global_init failed: \(result.rawValue)")
    }
}
