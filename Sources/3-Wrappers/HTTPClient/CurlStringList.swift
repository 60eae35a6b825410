internal import CCurl

/// The one Swift owner of a `curl_slist` (request headers); it must outlive the transfer that uses it.
final class CurlStringList {
    private(set) var raw: UnsafeMutablePointer<curl_slist>?

    init(_ lines: [String]) {
        for line in lines {
            // curl_slist_append copies the string; on failure the old list is kept and stays ours.
            guard let appended = curl_slist_append(raw, line) else { fatalError("curl_slist_append: out of memory") }
            raw = appended
        }
    }

    deinit {
        curl_slist_free_all(raw)
    }
}
