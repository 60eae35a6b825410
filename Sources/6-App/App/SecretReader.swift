internal import AttestCore
internal import HTTPClient

/// Reads a secret's value at cold start.
enum SecretReader {
    /// The secret's bytes, trailing newlines removed (files written by `echo` end with one).
    /// - Throws: `StartupError` `.secretUnreadable` when it cannot be read or is empty; the detail names
    ///   the setting and the reason slug, never the value.
    static func read(
        _ location: SecretLocation,
        name: String,
        configuration: Configuration,
        transport: any HTTPTransport
    ) async throws(StartupError) -> [UInt8] {
        let source = try location.source(configuration: configuration, transport: transport)
        var bytes: [UInt8]
        do {
            bytes = try await source.readSecret()
        } catch {
            throw StartupError(.secretUnreadable, detail: "\(name): \(error.reason.slug)")
        }
        while let last = bytes.last, last == 0x0a || last == 0x0d { bytes.removeLast() }
        guard !bytes.isEmpty else { throw StartupError(.secretUnreadable, detail: "\(name): empty") }
        return bytes
    }
}
