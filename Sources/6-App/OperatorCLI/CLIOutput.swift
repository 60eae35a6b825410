internal import AttestCore
internal import Glibc

/// How commands talk back: one JSON object on stdout, usage errors on stderr.
enum CLIOutput {
    static func json(_ value: JSONValue) {
        print(value.serialized)
    }

    static func usage(_ message: String) {
        let bytes = Array((message.hasSuffix("\n") ? message : message + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// A usage error: the message on stderr, exit status 2.
    static func usageError(_ message: String) -> Int32 {
        usage(message)
        return 2
    }

    /// A failure (the store's, or a control refused for the state it found): `{"error":"<slug>"}` on stdout,
    /// the detail (if any) on stderr, exit status 1.
    static func failure(_ slug: String, _ detail: String) -> Int32 {
        json(.object(["error": .string(slug)]))
        if !detail.isEmpty { usage(detail) }
        return 1
    }

    /// All of standard input, capped at `limit` bytes (nil when larger).
    static func readStandardInput(limit: Int = 1 << 20) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            out += chunk.prefix(count)
            if out.count > limit { return nil }
        }
        return out
    }
}

/// `--name value` options and `--flag` switches, each allowed once.
struct CommandOptions {
    private(set) var values: [String: String] = [:]
    private(set) var flags: Set<String> = []

    /// Parses `arguments` against the known value options and flags; nil (with a message) on anything else.
    init?(_ arguments: [String], values known: Set<String>, flags knownFlags: Set<String>) {
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            if knownFlags.contains(name), !flags.contains(name) {
                flags.insert(name)
                index += 1
            } else if known.contains(name), values[name] == nil, index + 1 < arguments.count {
                values[name] = arguments[index + 1]
                index += 2
            } else {
                CLIOutput.usage("unexpected or repeated argument: \(name)")
                return nil
            }
        }
    }

    subscript(name: String) -> String? { values[name] }
}
