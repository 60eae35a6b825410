public import AttestCore
internal import Synchronization

/// A log sink that keeps every line in memory, so tests can read back what was logged (the product's
/// `Logger` writes to any `LogSink`; it ships only `StandardErrorSink`).
public final class CapturingLogSink: LogSink {
    private let storage = Mutex<[String]>([])

    public init() {}

    public func write(line: String) { storage.withLock { $0.append(line) } }

    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }

    /// Every line written so far, parsed.
    public var objects: [JSONValue] { lines.compactMap { try? JSONValue.parse(Array($0.utf8)) } }
}
