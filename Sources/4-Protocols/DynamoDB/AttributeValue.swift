package import AttestCore

/// One DynamoDB attribute value, typed as the wire format types it (the "Data type descriptors" of the
/// DynamoDB developer guide). Numbers stay decimal strings, exactly as DynamoDB sends and stores them.
package indirect enum AttributeValue: Sendable, Hashable {
    case s(String)
    case n(String)
    case b([UInt8])
    case bool(Bool)
    case null
    case m([String: AttributeValue])
    case l([AttributeValue])
    case ss([String])
    case ns([String])
    case bs([[UInt8]])

    /// A number attribute from an integer.
    package static func number(_ value: some BinaryInteger) -> AttributeValue { .n(String(value)) }

    /// The string, for an `S` value.
    package var stringValue: String? {
        if case .s(let value) = self { return value }
        return nil
    }

    /// The integer, for an `N` value that is a whole number in range.
    package var intValue: Int64? {
        if case .n(let value) = self { return Int64(value) }
        return nil
    }

    /// The bytes, for a `B` value.
    package var bytesValue: [UInt8]? {
        if case .b(let value) = self { return value }
        return nil
    }

    /// The map, for an `M` value.
    package var mapValue: [String: AttributeValue]? {
        if case .m(let value) = self { return value }
        return nil
    }
}

/// An item (or a key): attribute names to values.
package typealias Item = [String: AttributeValue]

extension AttributeValue {
    /// The wire form, e.g. `{"S":"x"}`, `{"N":"1"}`, `{"B":"<base64>"}`.
    package var json: JSONValue {
        switch self {
        case .s(let value): .object(["S": .string(value)])
        case .n(let value): .object(["N": .string(value)])
        case .b(let value): .object(["B": .string(Bytes.base64(value))])
        case .bool(let value): .object(["BOOL": .bool(value)])
        case .null: .object(["NULL": .bool(true)])
        case .m(let value): .object(["M": .object(value.mapValues(\.json))])
        case .l(let value): .object(["L": .array(value.map(\.json))])
        case .ss(let value): .object(["SS": .array(value.map(JSONValue.string))])
        case .ns(let value): .object(["NS": .array(value.map(JSONValue.string))])
        case .bs(let value): .object(["BS": .array(value.map { .string(Bytes.base64($0)) })])
        }
    }

    /// Reads the wire form: an object with exactly one known type descriptor.
    /// - Throws: `AWSError` `aws.malformed_response` for anything else.
    package init(json: JSONValue, depth: Int = 0) throws(DynamoDBError) {
        guard depth < 32, case .object(let members) = json, members.count == 1, let (type, value) = members.first
        else { throw DynamoDBError(.malformedItem, detail: "not a single-descriptor attribute value") }
        func strings() throws(DynamoDBError) -> [String] {
            guard let array = value.arrayValue else {
                throw DynamoDBError(.malformedItem, detail: "\(type) not a list")
            }
            var out: [String] = []
            for element in array {
                guard let text = element.stringValue else {
                    throw DynamoDBError(.malformedItem, detail: "\(type) element not a string")
                }
                out.append(text)
            }
            return out
        }
        func bytes(_ text: String?) throws(DynamoDBError) -> [UInt8] {
            guard let text, let decoded = Bytes.fromBase64(text) else {
                throw DynamoDBError(.malformedItem, detail: "\(type) not base64")
            }
            return decoded
        }
        switch (type, value) {
        case ("S", .string(let text)): self = .s(text)
        case ("N", .string(let text)): self = .n(text)
        case ("B", .string(let text)): self = .b(try bytes(text))
        case ("BOOL", .bool(let flag)): self = .bool(flag)
        case ("NULL", .bool(true)): self = .null
        case ("M", .object(let map)):
            var out: [String: AttributeValue] = [:]
            for (name, element) in map { out[name] = try AttributeValue(json: element, depth: depth + 1) }
            self = .m(out)
        case ("L", .array(let list)):
            var out: [AttributeValue] = []
            for element in list { out.append(try AttributeValue(json: element, depth: depth + 1)) }
            self = .l(out)
        case ("SS", _): self = .ss(try strings())
        case ("NS", _): self = .ns(try strings())
        case ("BS", _):
            var out: [[UInt8]] = []
            for text in try strings() { out.append(try bytes(text)) }
            self = .bs(out)
        default: throw DynamoDBError(.malformedItem, detail: "unknown or mistyped descriptor \(type)")
        }
    }

    /// An item from its wire form (a JSON object of attribute values).
    package static func item(json: JSONValue) throws(DynamoDBError) -> Item {
        guard case .object(let members) = json else {
            throw DynamoDBError(.malformedItem, detail: "item not an object")
        }
        var item: Item = [:]
        for (name, value) in members { item[name] = try AttributeValue(json: value) }
        return item
    }

    /// The wire form of an item.
    package static func json(item: Item) -> JSONValue { .object(item.mapValues(\.json)) }
}
