internal import HTTPClient

/// HTTP header fields in arrival order; names compare case-insensitively (ASCII, as header names are
/// tokens: `HTTPHeader.namesMatch`, no lower-cased copies), duplicates are kept.
package struct HeaderFields: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    package private(set) var fields: [(name: String, value: String)] = []

    package init() {}

    package init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { append(name, value) }
    }

    package mutating func append(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field named `name` with one field.
    package mutating func set(_ name: String, _ value: String) {
        remove(name)
        append(name, value)
    }

    package mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeader.namesMatch($0.name, name) }
    }

    /// Every value of `name`, in order.
    package func values(_ name: String) -> [String] {
        fields.filter { HTTPHeader.namesMatch($0.name, name) }.map(\.value)
    }

    /// The values of `name` joined with "," (how HTTP API 2.0 presents duplicates); nil when absent.
    package subscript(_ name: String) -> String? {
        var joined: String?
        for field in fields where HTTPHeader.namesMatch(field.name, name) {
            joined = joined.map { $0 + "," + field.value } ?? field.value
        }
        return joined
    }

    /// Distinct names in first-seen order, with the spelling first seen.
    package var names: [String] {
        var names: [String] = []
        for field in fields where !names.contains(where: { HTTPHeader.namesMatch($0, field.name) }) {
            names.append(field.name)
        }
        return names
    }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}
