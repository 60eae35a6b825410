internal import FoundationEssentials

/// Reads a secret's value at cold start.
enum SecretReader {
    /// Secrets are small (an API key, a PEM, a service-account JSON); anything bigger is a mistake.
    static let maxBytes = 64 * 1024

    /// The secret's bytes, trailing newlines removed (files written by `echo` end with one).
    /// - Throws: `StartupError` for an unreadable/empty/oversized file, or a Secrets Manager ARN.
    static func read(_ source: SecretSource, name: String) throws(StartupError) -> [UInt8] {
        switch source {
        case .secretARN:
            throw StartupError(.secretsManagerUnsupported, detail: "\(name): use \(name)_FILE for now")
        case .file(let path):
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw StartupError(.secretUnreadable, detail: "\(name)_FILE cannot be read")
            }
            var bytes = Array(data)
            while let last = bytes.last, last == 0x0a || last == 0x0d { bytes.removeLast() }
            guard !bytes.isEmpty, bytes.count <= maxBytes else {
                throw StartupError(.secretUnreadable, detail: "\(name)_FILE is empty or larger than \(maxBytes) bytes")
            }
            return bytes
        }
    }
}
