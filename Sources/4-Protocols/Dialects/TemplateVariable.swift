package import AttestCore

/// One variable of a route's template: its type, its bound, and optionally the values it may take.
package struct TemplateVariable: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        case string, integer, number, boolean
    }

    package let kind: Kind
    /// For a string, its most characters (Unicode scalars), 1-100,000.
    package let maxLength: Int
    /// The only values allowed (`enum`), when given.
    package let allowed: [JSONValue]?

    /// `{"type":"string","maxLength":n}`, `{"type":"integer"|"number"|"boolean"}`, each with an optional
    /// `"enum":[…]` of values of its type.
    init(json: JSONValue, name: String) throws(TemplateProblem) {
        guard case .object(let spec) = json, Set(spec.keys).isSubset(of: ["type", "maxLength", "enum"]),
            let kind = spec["type"]?.stringValue.flatMap(Kind.init(rawValue:))
        else {
            throw TemplateProblem("template variable \(name): {\"type\":\"string|integer|number|boolean\",…}")
        }
        self.kind = kind
        if kind == .string {
            guard let length = spec["maxLength"]?.intValue, (1...100_000).contains(length) else {
                throw TemplateProblem("template variable \(name): a string needs maxLength 1-100000")
            }
            maxLength = Int(length)
        } else {
            guard spec["maxLength"] == nil else {
                throw TemplateProblem("template variable \(name): maxLength is for strings")
            }
            maxLength = 0
        }
        if let list = spec["enum"] {
            guard let values = list.arrayValue, (1...256).contains(values.count) else {
                throw TemplateProblem("template variable \(name): enum must list 1-256 values")
            }
            allowed = values
        } else {
            allowed = nil
        }
        if let allowed {
            for value in allowed {
                do {
                    try check(value, name: name)
                } catch {
                    throw TemplateProblem("template variable \(name): an enum value is not a valid \(kind.rawValue)")
                }
            }
        }
    }

    /// A valid value, for the start-up check.
    var sample: JSONValue {
        if let first = allowed?.first { return first }
        switch kind {
        case .string: return .string("x")
        case .integer, .number: return .int(0)
        case .boolean: return .bool(false)
        }
    }

    /// - Throws: `DialectRefusal` (`dialect.template_variable`) naming the variable and what is wrong.
    func check(_ value: JSONValue, name: String) throws(DialectRefusal) {
        switch (kind, value) {
        case (.string, .string(let text)):
            guard text.unicodeScalars.count <= maxLength else {
                throw DialectRefusal(.templateVariable, detail: "\(name) too long")
            }
        case (.integer, .int), (.number, .int), (.number, .double), (.boolean, .bool):
            break
        default:
            throw DialectRefusal(.templateVariable, detail: "\(name) is not a \(kind.rawValue)")
        }
        if let allowed, !allowed.contains(value) {
            throw DialectRefusal(.templateVariable, detail: "\(name) is not an allowed value")
        }
    }
}
