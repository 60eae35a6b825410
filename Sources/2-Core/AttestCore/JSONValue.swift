/// A JSON document as a value: what API Gateway events, DynamoDB's wire format and Google's answers
/// are read into before typed decoding, and what log lines are written from.
///
/// Parsing is our own (`JSONParser`: one pass over the bytes, bounded nesting depth; the same values as
/// the `Codable` conformance through `JSONDecoder` gives, at a fraction of its cost), and so is encoding,
/// so that key order is stable and every string is escaped the same way in logs and responses.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Parses UTF-8 JSON bytes. Any malformed input throws `JSONValue.ParseError`.
    package static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JSONValue {
        var parsed: Result<JSONValue, ParseError>?
        bytes.withContiguousStorageIfAvailable { buffer in
            parsed = Result { () throws(ParseError) in try JSONParser.parse(buffer) }
        }
        if let parsed { return try parsed.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(ParseError) in try JSONParser.parse(buffer) }
    }

    /// `parse(_:)` for an array, without the generic path's dispatch (most callers hold an array).
    package static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(ParseError) in try JSONParser.parse(buffer) }
    }

    package struct ParseError: Error, Hashable {}

    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    package var intValue: Int64? {
        switch self {
        case .int(let value): return value
        case .double(let value) where value.rounded() == value && abs(value) < 9e15: return Int64(value)
        default: return nil
        }
    }

    package var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    package var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    package var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }
}
