package import AttestCore

/// Allocates the placeholders of one request and renders its expressions (see `DynamoExpression`).
///
/// Names are deduplicated (`#n0` for every use of one attribute); each value gets its own `:vN`. Only what
/// an interpolation used is ever defined, and literal text may contain no `#`, `:`, or unbalanced
/// parenthesis, so the rendered request always satisfies DynamoDB's "every placeholder defined and used".
package struct ExpressionRenderer: Sendable {
    private var names: [String: String] = [:]
    private var values: [(placeholder: String, value: AttributeValue)] = []

    package init() {}

    /// Renders `expression`.
    /// - Parameter role: for the error message (`ConditionExpression`, ...).
    /// - Throws: `dynamodb.invalid_expression` when the literal text names a placeholder of its own, is
    ///   unbalanced, or the expression is empty.
    package mutating func render(_ expression: DynamoExpression, role: String) throws(DynamoDBError) -> String {
        var out = ""
        var depth = 0
        for segment in expression.segments {
            switch segment {
            case .text(let text):
                for byte in Self.asciiCharacters(of: text) {
                    switch byte {
                    case UInt8(ascii: "#"), UInt8(ascii: ":"):
                        let marker = Character(Unicode.Scalar(byte))
                        throw DynamoDBError(
                            .invalidExpression,
                            detail: "\(role): placeholder written as text (\(Self.token(in: text, at: marker))); "
                                + "interpolate \\(name:) or \\(value:) instead"
                        )
                    case UInt8(ascii: "("): depth += 1
                    case UInt8(ascii: ")"):
                        depth -= 1
                        if depth < 0 { throw DynamoDBError(.invalidExpression, detail: "\(role): unbalanced ')'") }
                    default: break
                    }
                }
                out += text
            case .name(let name):
                guard !name.isEmpty else { throw DynamoDBError(.invalidExpression, detail: "\(role): empty name") }
                if let placeholder = names[name] {
                    out += placeholder
                } else {
                    let placeholder = "#n\(names.count)"
                    names[name] = placeholder
                    out += placeholder
                }
            case .value(let value):
                let placeholder = ":v\(values.count)"
                values.append((placeholder, value))
                out += placeholder
            }
        }
        guard depth == 0 else { throw DynamoDBError(.invalidExpression, detail: "\(role): unbalanced '('") }
        // Printable ASCII settles it at once; only text without any looks at Unicode's whitespace.
        guard out.utf8.contains(where: { $0 > 0x20 && $0 < 0x7f }) || out.contains(where: { !$0.isWhitespace }) else {
            throw DynamoDBError(.invalidExpression, detail: "\(role): empty expression")
        }
        return out
    }

    /// Renders an update expression clause by clause.
    package mutating func render(_ update: UpdateExpression) throws(DynamoDBError) -> String {
        guard !update.isEmpty else { throw DynamoDBError(.invalidExpression, detail: "UpdateExpression: no action") }
        var clauses: [String] = []
        for (keyword, actions) in update.combined {
            var rendered: [String] = []
            for action in actions { rendered.append(try render(action, role: "UpdateExpression \(keyword)")) }
            clauses.append(keyword + " " + rendered.joined(separator: ", "))
        }
        return clauses.joined(separator: " ")
    }

    /// Adds `ExpressionAttributeNames`/`ExpressionAttributeValues` to `input` when any were allocated.
    package func addAttributes(to input: inout [String: JSONValue]) {
        if !names.isEmpty {
            input["ExpressionAttributeNames"] = .object(
                Dictionary(uniqueKeysWithValues: names.map { ($0.value, JSONValue.string($0.key)) })
            )
        }
        if !values.isEmpty {
            input["ExpressionAttributeValues"] = .object(
                Dictionary(uniqueKeysWithValues: values.map { ($0.placeholder, $0.value.json) })
            )
        }
    }

    /// The values allocated so far, for size checks.
    var allocatedValues: [AttributeValue] { values.map(\.value) }

    /// The characters of `text` that are single ASCII bytes: all its bytes when it is ASCII (fast); else its
    /// characters one by one, so that a `(` followed by a combining mark is not a `(`.
    private static func asciiCharacters(of text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return Array(text.utf8) }
        return text.compactMap { $0.unicodeScalars.count == 1 ? $0.asciiValue : nil }
    }

    private static func token(in text: String, at marker: Character) -> String {
        guard let start = text.firstIndex(of: marker) else { return String(marker) }
        let token = text[start...].prefix { $0 == marker || $0.isLetter || $0.isNumber || $0 == "_" }
        return String(token.prefix(32))
    }
}
