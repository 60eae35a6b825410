internal import COpenSSL

/// OpenSSL's per-thread error queue. Read it in the same synchronous call that failed: after an
/// `await` the task may resume on another thread with another queue. `package` so that test support
/// (Tests/Support/CryptoTestSupport) reports its OpenSSL failures the same way.
package enum OpenSSLErrorQueue {
    /// Empties the queue and returns its entries as one line (for `CryptoError.detail`).
    package static func drain() -> String {
        var lines: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            if lines.count < 4 {
                lines.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return lines.joined(separator: "; ")
    }

    /// A `CryptoError` carrying whatever the queue holds, which is emptied.
    package static func error(_ reason: CryptoError.Reason, _ what: String) -> CryptoError {
        let queue = drain()
        return CryptoError(reason, detail: queue.isEmpty ? what : "\(what): \(queue)")
    }
}
