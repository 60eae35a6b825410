internal import Glibc

/// Reads a secret from a local file (`GOOGLE_SERVICE_ACCOUNT_FILE`, `DEVICECHECK_PRIVATE_KEY_FILE`, …).
/// For local runs; Lambda reads Secrets Manager by ARN instead.
package struct FileSecretSource: SecretSource {
    /// The file's path.
    package let path: String
    /// The largest file accepted.
    package let maxBytes: Int

    package init(path: String, maxBytes: Int = 64 * 1024) {
        self.path = path
        self.maxBytes = maxBytes
    }

    package func readSecret() async throws(SecretSourceError) -> [UInt8] {
        try Self.read(path, maxBytes: maxBytes).get()
    }

    /// The whole file at `path`, if it holds at most `maxBytes` (also for files that are not secrets: a route
    /// table shipped in the zip, `ROUTES_FILE`). Synchronous: for cold start, before anything runs.
    package static func read(_ path: String, maxBytes: Int) -> Result<[UInt8], SecretSourceError> {
        Result { () throws(SecretSourceError) -> [UInt8] in try readAll(path, maxBytes: maxBytes) }
    }

    private static func readAll(_ path: String, maxBytes: Int) throws(SecretSourceError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw SecretSourceError(code == ENOENT ? .notFound : .unavailable, detail: "open failed, errno \(code)")
        }
        defer { close(fd) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { for index in chunk.indices { chunk[index] = 0 } }
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw SecretSourceError(.unavailable, detail: "read failed, errno \(errno)")
            }
            guard out.count + count <= maxBytes else {
                throw SecretSourceError(.tooLarge, detail: "more than \(maxBytes) bytes")
            }
            out.append(contentsOf: chunk.prefix(count))
        }
        return out
    }
}
