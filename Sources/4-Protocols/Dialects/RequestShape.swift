internal import AttestCore

/// The closed world of a known dialect (docs/dialects.md): what a request body may hold, member by member. A
/// member, part, item or configuration field the gate does not know how to bound and price refuses the body
/// before anything is spent; the reason slug says which class it was, the detail (for the log only) where.
indirect enum RequestShape: Sendable {
    /// A value whose tokens its bytes bound (text, a number, a JSON schema, a tool's arguments), whatever
    /// it holds.
    case value
    /// An object with only these members.
    case object([String: RequestShape], RequestShapeClass)
    /// An array whose elements all have one shape.
    case array(RequestShape)
    /// A string or `null` (message content as text), or else the shape (content as an array of parts).
    case textOr(RequestShape)
    /// Objects told apart by a member (`type`, `role`): the shape of each value; `untagged` for an object
    /// without that member (an OpenAI input message may leave out its `type`), nil to refuse one.
    case tagged(String, [String: RequestShape], RequestShapeClass, untagged: RequestShape?)
}

/// Which class of member a refusal names (its reason slug).
enum RequestShapeClass: Sendable {
    /// A top-level request field.
    case field
    /// A member of a nested configuration object (`generationConfig`, `thinking`, `stream_options`, …).
    case config
    /// A message, content part, input item, content block or tool of a type the gate does not know.
    case part

    var reason: DialectRefusal.Reason {
        switch self {
        case .field: .unknownField
        case .config: .unknownConfig
        case .part: .unknownPart
        }
    }
}

extension RequestShape {
    /// Checks `value` against the shape; `normalize` maps a member name to the one the shape lists (Gemini
    /// accepts both `generation_config` and `generationConfig`).
    /// - Throws: `DialectRefusal` with the class of the first unknown member, and its path as the detail.
    func check(_ value: JSONValue, at path: String, normalize: (String) -> String = { $0 }) throws(DialectRefusal) {
        switch self {
        case .value:
            return
        case .object(let members, let kind):
            guard case .object(let object) = value else { throw Self.invalid(path) }
            for (name, member) in object {
                let key = normalize(name)
                guard let shape = members[key] else { throw Self.unknown(kind, path, name) }
                try shape.check(member, at: path + "." + key, normalize: normalize)
            }
        case .array(let element):
            guard case .array(let elements) = value else { throw Self.invalid(path) }
            for (index, item) in elements.enumerated() {
                try element.check(item, at: path + "[\(index)]", normalize: normalize)
            }
        case .textOr(let shape):
            switch value {
            case .string, .null: return
            default: try shape.check(value, at: path, normalize: normalize)
            }
        case .tagged(let tag, let cases, let kind, let untagged):
            guard case .object(let object) = value else { throw Self.invalid(path) }
            guard let tagValue = object.first(where: { normalize($0.key) == tag })?.value, tagValue != .null else {
                guard let untagged else { throw Self.unknown(kind, path, "(no \(tag))") }
                return try untagged.check(value, at: path, normalize: normalize)
            }
            guard case .string(let name) = tagValue, let shape = cases[name] else {
                throw Self.unknown(kind, path, "\(tag) \(tagValue.serialized.prefix(40))")
            }
            try shape.check(value, at: path + "<\(name)>", normalize: normalize)
        }
    }

    private static func unknown(_ kind: RequestShapeClass, _ path: String, _ name: String) -> DialectRefusal {
        DialectRefusal(kind.reason, detail: String((path + " " + name).prefix(160)))
    }

    private static func invalid(_ path: String) -> DialectRefusal {
        DialectRefusal(.fieldInvalid, detail: String(path.prefix(160)))
    }

    /// An object shape of `members` (all `.value`) and `more`.
    static func fields(
        _ names: [String],
        _ kind: RequestShapeClass,
        _ more: [String: RequestShape] = [:]
    ) -> RequestShape {
        var members = more
        for name in names where members[name] == nil { members[name] = .value }
        return .object(members, kind)
    }

    /// This object shape with `extra` members allowed as values (a route's `allowFields`).
    func adding(_ extra: Set<String>) -> RequestShape {
        guard !extra.isEmpty, case .object(var members, let kind) = self else { return self }
        for name in extra where members[name] == nil { members[name] = .value }
        return .object(members, kind)
    }
}
