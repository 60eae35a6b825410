internal import Glibc

/// The process environment as a value, so configuration is built from a dictionary in tests and from
/// `environ` exactly once at cold start.
package struct Environment: Sendable, Hashable {
    package let values: [String: String]

    package init(_ values: [String: String]) {
        self.values = values
    }

    /// A snapshot of the process environment.
    package static func process() -> Environment {
        var values: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
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
