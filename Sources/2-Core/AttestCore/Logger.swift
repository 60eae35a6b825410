internal import Glibc

/// A structured logger that writes one JSON object per line, with the keys AWS's own tools read: `level`
/// (`DEBUG`, `INFO`, `WARN`, `ERROR`, which Lambda's log-level filtering understands), `message`, `timestamp`
/// (RFC 3339, UTC, milliseconds), then the call's fields and the metadata (Powertools' `service`, `cold_start`,
/// `function_name`, `function_request_id`, `xray_trace_id`…; docs/operations.md, "Log lines").
///
/// Messages are static text; everything variable goes into fields, which are serialised as JSON values,
/// so a client-controlled string can never break out of its field or forge another one. Evidence,
/// tokens, keys and secrets are never logged: callers log reason slugs and lengths instead.
public struct Logger: Sendable {
    /// Severity, ordered from least to most severe.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The name in the `level` field: Powertools' and Lambda's (`WARN`, not `warning`).
        public var name: String {
            switch self {
            case .debug: "DEBUG"
            case .info: "INFO"
            case .warning: "WARN"
            case .error: "ERROR"
            }
        }

        /// Parses a `LOG_LEVEL` or `AWS_LAMBDA_LOG_LEVEL` value (case-insensitive): `debug`, `info`,
        /// `warn`/`warning`, `error`, and Lambda's `trace` (as debug) and `fatal` (as error); nil otherwise.
        public init?(name: String) {
            switch name.lowercased() {
            case "trace", "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warning
            case "error", "fatal": self = .error
            default: return nil
            }
        }
    }

    /// The least severe level that is written.
    public var level: Level
    /// Fields attached to every line (the invocation's `requestId`, for example).
    public var metadata: [String: JSONValue]
    private let sink: any LogSink
    /// The wall clock of the `timestamp` key, in Unix milliseconds.
    private let clock: @Sendable () -> Int64

    public init(
        level: Level = .info,
        metadata: [String: JSONValue] = [:],
        sink: any LogSink = StandardErrorSink(),
        clock: @escaping @Sendable () -> Int64 = Logger.realTimeMillis
    ) {
        self.level = level
        self.metadata = metadata
        self.sink = sink
        self.clock = clock
    }

    /// The real time in Unix milliseconds (`CLOCK_REALTIME`).
    public static func realTimeMillis() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// A copy of this logger that adds `value` under `key` on every line.
    public func with(_ key: String, _ value: JSONValue) -> Logger {
        var copy = self
        copy.metadata[key] = value
        return copy
    }

    /// Writes one line if `level` is enabled. `fields` override metadata of the same name.
    public func log(_ level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        guard level >= self.level else { return }
        write(level, message, fields)
    }

    /// Writes one `info` line whatever `level` says. For decision lines only: they carry the EMF metrics
    /// every alarm reads, so `LOG_LEVEL=warning` must never mute them.
    public func record(_ message: String, _ fields: [String: JSONValue] = [:]) { write(.info, message, fields) }

    /// The line's members by precedence (level and message, the call's fields, the logger's metadata,
    /// the task's), serialised as one object: no merged dictionary is built on the way.
    private func write(_ level: Level, _ message: String, _ fields: [String: JSONValue]) {
        let task = Logger.taskMetadata
        var members: [(key: String, value: JSONValue)] = []
        members.reserveCapacity(3 + fields.count + metadata.count + task.count)
        members.append((key: "level", value: .string(level.name)))
        members.append((key: "message", value: .string(message)))
        members.append((key: "timestamp", value: .string(RFC3339.utc(millis: clock()))))
        for (key, value) in fields { members.append((key: key, value: value)) }
        for (key, value) in metadata { members.append((key: key, value: value)) }
        for (key, value) in task { members.append((key: key, value: value)) }
        sink.write(line: JSONValue.serializedObject(members))
    }

    public func debug(_ message: String, _ fields: [String: JSONValue] = [:]) { log(.debug, message, fields) }
    public func info(_ message: String, _ fields: [String: JSONValue] = [:]) { log(.info, message, fields) }
    public func warning(_ message: String, _ fields: [String: JSONValue] = [:]) { log(.warning, message, fields) }
    public func error(_ message: String, _ fields: [String: JSONValue] = [:]) { log(.error, message, fields) }
}

extension Logger {
    /// Fields added to every line written from the current task tree, whichever logger writes it. The
    /// runtime loop puts the invocation's `requestId` here, so loggers made at cold start (stores,
    /// verifiers) tag an invocation's lines too. A logger's own metadata and fields take precedence.
    @TaskLocal public static var taskMetadata: [String: JSONValue] = [:]
}

/// Where log lines go. Each call carries one complete line without its newline.
public protocol LogSink: Sendable {
    /// Writes `line` followed by a newline, atomically with respect to other lines.
    func write(line: String)
}

/// Writes to standard error with one `write(2)` per line, which Lambda forwards to CloudWatch Logs.
public struct StandardErrorSink: LogSink {
    public init() {}

    public func write(line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
