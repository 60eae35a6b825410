/// A decoded CBOR data item (RFC 8949), restricted to what App Attest evidence uses.
///
/// Maps keep their entries in wire order (duplicate keys are refused by the decoder), so a value
/// decoded and encoded again gives back the same bytes for canonical input.
package enum CBORValue: Hashable, Sendable {
    case unsigned(UInt64)
    /// A negative integer `-1 - n`, stored as `n` so the whole major-type-1 range fits.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    case map([CBORMapEntry])
    case bool(Bool)
    case null

    /// The value stored under the text key `key` in a map; nil for other values or a missing key.
    package subscript(key: String) -> CBORValue? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.key == .text(key) })?.value
    }

    /// The bytes of a byte string, nil for anything else.
    package var bytesValue: [UInt8]? {
        if case .bytes(let b) = self { return b }
        return nil
    }

    /// The string of a text string, nil for anything else.
    package var textValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }

    /// The elements of an array, nil for anything else.
    package var arrayValue: [CBORValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The entries of a map, nil for anything else.
    package var mapValue: [CBORMapEntry]? {
        if case .map(let m) = self { return m }
        return nil
    }
}

/// One key/value pair of a CBOR map.
package struct CBORMapEntry: Hashable, Sendable {
    package let key: CBORValue
    package let value: CBORValue

    package init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}
