package import AttestCore

/// A route's server-side template (docs/dialects.md, "Template routes"): the provider request with placeholders,
/// and the variables a client may fill. The client sends only `{"variables": {…}}`; the gate checks each value
/// and renders the provider body, so the prompt never ships in the app, the free tier cannot be used as a
/// general model proxy, and the worst case is the template's plus the variables' bounds.
///
/// A placeholder is `{{name}}` inside a JSON string of the template. A string that is only a placeholder takes
/// the variable's typed value (a number stays a number); a placeholder inside a longer string takes the value's
/// text (a number or a boolean as its JSON text).
package struct RequestTemplate: Sendable, Hashable {
    /// The provider request with its placeholders.
    package let body: JSONValue
    package let variables: [String: TemplateVariable]

    /// Reads a route's `template`: `{"body": {…}, "variables": {"name": {"type": …, "maxLength": n,
    /// "enum": […]}}}`; every placeholder names a declared variable and every variable is used.
    /// - Throws: a message for the configuration's problem list.
    package init(json: JSONValue) throws(TemplateProblem) {
        guard case .object(let members) = json, Set(members.keys).isSubset(of: ["body", "variables"]),
            case .object? = members["body"], case .object(let declared)? = members["variables"],
            (1...64).contains(declared.count)
        else {
            throw TemplateProblem(
                "template must be {\"body\":{…},\"variables\":{\"name\":{\"type\":…}}} (1-64 variables)"
            )
        }
        var variables: [String: TemplateVariable] = [:]
        for (name, spec) in declared {
            guard Self.isName(name) else { throw TemplateProblem("template variable name \(name.prefix(64))") }
            variables[name] = try TemplateVariable(json: spec, name: name)
        }
        let body = members["body"]!
        var used: Set<String> = []
        try Self.collect(body, into: &used, variables: variables)
        if let unused = variables.keys.sorted().first(where: { !used.contains($0) }) {
            throw TemplateProblem("template variable \(unused) is never used in the body")
        }
        self.body = body
        self.variables = variables
    }

    /// The provider body for a client's `{"variables": {…}}`.
    package func render(_ clientBody: [UInt8]) -> Result<[UInt8], DialectRefusal> {
        do throws(DialectRefusal) {
            let document = try RequestFields.object(clientBody)
            guard document.count == 1, case .object(let values)? = document["variables"] else {
                throw DialectRefusal(.templateBody, detail: "not {\"variables\":{…}}")
            }
            if let unknown = values.keys.sorted().first(where: { variables[$0] == nil }) {
                throw DialectRefusal(.templateVariable, detail: "unknown \(unknown.prefix(64))")
            }
            for (name, variable) in variables {
                guard let value = values[name], value != .null else {
                    throw DialectRefusal(.templateVariable, detail: "missing \(name)")
                }
                try variable.check(value, name: name)
            }
            return .success(Self.fill(body, with: values).serializedBytes)
        } catch {
            return .failure(error)
        }
    }

    /// The body with every variable at a sample value (its first allowed value, or the kind's smallest), for the
    /// start-up check that the template passes its dialect.
    package func sample() -> [UInt8] {
        Self.fill(body, with: variables.mapValues(\.sample)).serializedBytes
    }

    static func isName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x5F
            }
    }

    /// The placeholders of `text` in order, and whether the text is exactly one of them.
    static func placeholders(in text: String) -> (names: [String], whole: Bool) {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "{{"), let close = rest[open.upperBound...].firstRange(of: "}}") {
            names.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        let whole = names.count == 1 && text == "{{" + names[0] + "}}"
        return (names, whole)
    }

    private static func collect(
        _ value: JSONValue,
        into used: inout Set<String>,
        variables: [String: TemplateVariable]
    ) throws(TemplateProblem) {
        switch value {
        case .string(let text):
            for name in placeholders(in: text).names {
                guard variables[name] != nil else {
                    throw TemplateProblem("template placeholder {{\(name.prefix(64))}} names no variable")
                }
                used.insert(name)
            }
        case .array(let items):
            for item in items { try collect(item, into: &used, variables: variables) }
        case .object(let members):
            for (key, member) in members {
                guard placeholders(in: key).names.isEmpty else {
                    throw TemplateProblem("template placeholder in a member name: \(key.prefix(64))")
                }
                try collect(member, into: &used, variables: variables)
            }
        default:
            break
        }
    }

    private static func fill(_ value: JSONValue, with values: [String: JSONValue]) -> JSONValue {
        switch value {
        case .string(let text):
            let (names, whole) = placeholders(in: text)
            if names.isEmpty { return value }
            if whole { return values[names[0]] ?? .null }
            var out = text
            for name in Set(names) {
                // Text as it is; a number or a boolean as its JSON text (`5`, `0.2`, `true`).
                let value = values[name] ?? .null
                out = out.replacing("{{" + name + "}}", with: value.stringValue ?? value.serialized)
            }
            return .string(out)
        case .array(let items):
            return .array(items.map { fill($0, with: values) })
        case .object(let members):
            return .object(members.mapValues { fill($0, with: values) })
        default:
            return value
        }
    }
}

/// Why a route's `template` cannot be used (for the configuration's problem list).
package struct TemplateProblem: Error, Hashable {
    package let message: String
    init(_ message: String) { self.message = message }
}
