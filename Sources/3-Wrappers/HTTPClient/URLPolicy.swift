internal import CCurl

/// Which URLs an outbound request may reach: https anywhere, plain http only on loopback
/// (the Lambda Runtime API, local fakes and moto).
///
/// The URL is split by libcurl's own parser (`curl_url(3)`), so the host we check is the host libcurl
/// will connect to; `http://localhost@evil.example/` or `http://127.0.0.1.evil.example/` are refused.
package struct URLPolicy {
    /// The scheme and host of an accepted URL.
    package struct Target: Equatable {
        package var scheme: String
        package var host: String
        package var isLoopback: Bool
        /// `scheme://host:port` (the port spelled out, default or not): which connections a handle
        /// that served this target keeps (`CurlHandlePool.take(for:)`).
        package var origin: String = ""
        /// The value for `CURLOPT_PROTOCOLS_STR`: exactly the one protocol this request may use.
        var allowedProtocols: String { scheme }
    }

    /// Parses `url` and applies the policy.
    /// - Throws: `HTTPError` `http.invalid_url` when it does not parse, `http.protocol_refused` for any
    ///   scheme other than https, or for http to a host that is not loopback.
    package static func check(_ url: String) throws(HTTPError) -> Target {
        guard let handle = curl_url() else { throw HTTPError(.failed, detail: "curl_url: out of memory") }
        defer { curl_url_cleanup(handle) }
        // Parse any scheme, also one this libcurl is built without (ours speaks only http and https):
        // the policy below refuses it as `protocol_refused`, whatever the build.
        let rc = curl_url_set(handle, CURLUPART_URL, url, UInt32(CURLU_NON_SUPPORT_SCHEME))
        guard rc == CURLUE_OK else {
            throw HTTPError(.invalidURL, detail: "curl_url_set: \(rc.rawValue)")
        }
        guard let scheme = part(handle, CURLUPART_SCHEME)?.lowercased() else {
            throw HTTPError(.invalidURL, detail: "URL without scheme")
        }
        guard scheme == "https" || scheme == "http" else {
            throw HTTPError(.protocolRefused, detail: "scheme \(scheme) refused")
        }
        guard let host = part(handle, CURLUPART_HOST)?.lowercased(), !host.isEmpty else {
            throw HTTPError(.invalidURL, detail: "URL without host")
        }
        let loopback = isLoopback(host: host)
        let port = part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)) ?? ""
        let origin = scheme + "://" + host + ":" + port
        switch scheme {
        case "https": return Target(scheme: scheme, host: host, isLoopback: loopback, origin: origin)
        case "http" where loopback: return Target(scheme: scheme, host: host, isLoopback: true, origin: origin)
        default: throw HTTPError(.protocolRefused, detail: "scheme \(scheme) refused for this host")
        }
    }

    /// `localhost`, any address in 127.0.0.0/8 written as a dotted quad, or `[::1]`.
    package static func isLoopback(host: String) -> Bool {
        if host == "localhost" || host == "[::1]" || host == "::1" { return true }
        // Four dot-separated decimal octets of one to three ASCII digits, each at most 255, the first 127.
        var octets = 0
        var value = 0
        var digits = 0
        var first = -1
        for byte in host.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets < 3 else { return false }
                if octets == 0 { first = value }
                octets += 1
                value = 0
                digits = 0
            } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 3 {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return false }
            } else {
                return false
            }
        }
        return octets == 3 && digits > 0 && first == 127
    }

    private static func part(_ handle: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, what, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
