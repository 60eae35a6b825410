internal import CCurl
internal import CShims

/// libcurl's process-wide initialisation, done exactly once.
///
/// `curl_global_init` must run before any thread uses libcurl (`libcurl-thread(3)`); `bootstrap` calls
/// `CurlTransport.globalInit()` as its first line and every transport calls it again (a no-op) so tests
/// and the CLI are covered too. `curl_global_cleanup` is never called: Lambda freezes and thaws the
/// process instead of exiting it.
///
/// OpenSSL is initialised first without its configuration file and without its error reason strings
/// (`cshim_openssl_init_without_config`): libcurl's own `OPENSSL_init_ssl` would otherwise parse
/// `openssl.cnf` and the first error queue would load ~3,000 reason strings, together ~0.7 ms of a
/// ~9 ms cold start (docs/performance-archive.md, "Init path"). Nothing AttestGate does is configured there
/// (on Lambda the shipped libcrypto finds no `openssl.cnf` anyway); the CA bundle is still set on every
/// https handle (`CURLOPT_CAINFO`). OpenSSL errors in log details then read as their packed code
/// (`error:1E08010C:lib(30)::reason(268)`), which `openssl errstr 1E08010C` spells out.
enum CurlGlobal {
    /// Swift initialises globals once, thread-safely, on first use.
    private static let result: CURLcode = {
        guard cshim_openssl_init_without_config() == 1 else { return CURLE_FAILED_INIT }
        return curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Initialises OpenSSL, then runs `curl_global_init(CURL_GLOBAL_DEFAULT)`, the first time; later calls
    /// do nothing.
    static func ensureInitialised() {
        precondition(result == CURLE_OK, "curl_global_init failed: \(result.rawValue)")
    }
}
