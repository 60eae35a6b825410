internal import AttestCore

/// Typed reads of the request fields a dialect checks; a wrong type is a refusal, never a guess.
/// `null` reads as absent, as the providers treat it.
enum RequestFields {
    /// Parses a body into its top-level object: JSON, an object, no key twice in any object.
    static func object(_ body: [UInt8]) throws(DialectRefusal) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            throw DialectRefusal(.malformedBody)
        }
        guard case .object(let object) = value else { throw DialectRefusal(.bodyNotObject) }
        if let key = DuplicateKeys.first(in: body) {
            throw DialectRefusal(.duplicateKey, detail: "key \(key.prefix(64))")
        }
        return object
    }

    static func int(_ object: [String: JSONValue], _ field: String) throws(DialectRefusal) -> Int? {
        switch object[field] {
        case nil, .null?: return nil
        case .int(let value)?: return Int(value)
        case .double(let value)? where value.rounded() == value && abs(value) < 9e15: return Int(value)
        default: throw DialectRefusal(.fieldInvalid, detail: "\(field) is not an integer")
        }
    }

    static func bool(_ object: [String: JSONValue], _ field: String) throws(DialectRefusal) -> Bool? {
        switch object[field] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw DialectRefusal(.fieldInvalid, detail: "\(field) is not a boolean")
        }
    }

    static func string(_ object: [String: JSONValue], _ field: String) throws(DialectRefusal) -> String? {
        switch object[field] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw DialectRefusal(.fieldInvalid, detail: "\(field) is not a string")
        }
    }

    /// A nested object, `[:]` when absent.
    static func object(_ object: [String: JSONValue], _ field: String) throws(DialectRefusal) -> [String: JSONValue] {
        switch object[field] {
        case nil, .null?: return [:]
        case .object(let value)?: return value
        default: throw DialectRefusal(.fieldInvalid, detail: "\(field) is not an object")
        }
    }

    /// The request's model, checked against the route's list.
    static func model(_ model: String?, policy: DialectPolicy) throws(DialectRefusal) -> String {
        guard let model, !model.isEmpty else { throw DialectRefusal(.modelMissing) }
        // Byte for byte: Swift's `==` would also match a canonically equivalent spelling.
        if let allowed = policy.models, !allowed.contains(where: { $0.utf8.elementsEqual(model.utf8) }) {
            throw DialectRefusal(.modelNotAllowed, detail: "model \(model.prefix(64))")
        }
        return model
    }

    /// A choice count: absent or 1 passes, more is `severalChoices`, fewer is invalid.
    static func checkSingleChoice(_ count: Int?, field: String) throws(DialectRefusal) {
        guard let count else { return }
        if count > 1 { throw DialectRefusal(.severalChoices, detail: "\(field) \(count)") }
        if count < 1 { throw DialectRefusal(.fieldInvalid, detail: "\(field) \(count)") }
    }

    /// The output cap a request asked for, lowered to the route's; `nil` when it asked for none.
    static func lowered(_ requested: Int?, field: String, cap: Int) throws(DialectRefusal) -> Int? {
        guard let requested else { return nil }
        guard requested >= 1 else { throw DialectRefusal(.fieldInvalid, detail: "\(field) \(requested)") }
        return min(requested, cap)
    }

    /// Refuses a field that is present and not `null`.
    static func refuse(
        _ object: [String: JSONValue],
        _ fields: [String],
        reason: DialectRefusal.Reason
    ) throws(DialectRefusal) {
        for field in fields where object[field] != nil && object[field] != .null {
            throw DialectRefusal(reason, detail: field)
        }
    }

    /// Whether `key` names a member of any object in the document.
    static func containsKey(_ key: String, in value: JSONValue) -> Bool {
        firstMatch(in: value) { $0[key] != nil ? key : nil } != nil
    }

    /// What `match` first finds in an object of the document, the outer object before its members, depth
    /// first; nil when no object matches.
    static func firstMatch(in value: JSONValue, _ match: ([String: JSONValue]) -> String?) -> String? {
        switch value {
        case .object(let members):
            if let found = match(members) { return found }
            for member in members.values {
                if let found = firstMatch(in: member, match) { return found }
            }
            return nil
        case .array(let values):
            for element in values {
                if let found = firstMatch(in: element, match) { return found }
            }
            return nil
        default:
            return nil
        }
    }
}
