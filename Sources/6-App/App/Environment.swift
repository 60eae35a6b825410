internal import Glibc

/// The process environment as a value, so configuration is built from a dictionary in tests and from
/// `environ` exactly once at cold start.
package struct Environment: Sendable, Hashable {
    package let values: [String: String]

    package init(_ values: [String: String]) {
        self.values = values
    }

    /// A snapshot of the process environment.
    ///
    /// Read as bytes, split at the first `=`, into a dictionary sized up front: this runs at every cold
    /// start, before the first invocation (docs/performance-archive.md, "Init path").
    package static func process() -> Environment {
        var count = 0
        while environ[count] != nil { count += 1 }
        var values = [String: String](minimumCapacity: count)
        for index in 0..<count {
            guard let entry = environ[index] else { break }
            let length = strlen(entry)
            entry.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let bytes = UnsafeBufferPointer(start: start, count: length)
                guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                values[name] = String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self)
            }
        }
        return Environment(values)
    }

    /// The value of `name`; an empty value counts as unset (templates often write `""`).
    package subscript(_ name: String) -> String? {
        guard let value = values[name], !value.isEmpty else { return nil }
        return value
    }

    /// A copy with `name` set (or removed with nil); for tests.
    package func with(_ name: String, _ value: String?) -> Environment {
        var values = self.values
        values[name] = value
        return Environment(values)
    }
}
