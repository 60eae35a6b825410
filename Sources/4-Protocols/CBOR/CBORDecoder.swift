/// A bounded CBOR decoder: definite lengths only, nesting and sizes capped, whole input consumed.
///
/// Every malformed input ends in a `CBORError` with a reason slug, never a crash: lengths are checked
/// against the bytes that remain before anything is allocated.
package struct CBORDecoder: Sendable {
    /// Deepest nesting of arrays and maps accepted (the top-level item is depth 1).
    package var maxDepth: Int
    /// Most elements (array items or map pairs) accepted in one container.
    package var maxElements: Int
    /// Most bytes accepted for the whole input.
    package var maxInputBytes: Int

    package init(maxDepth: Int = 16, maxElements: Int = 1024, maxInputBytes: Int = 64 * 1024) {
        self.maxDepth = maxDepth
        self.maxElements = maxElements
        self.maxInputBytes = maxInputBytes
    }

    /// Decodes exactly one data item that spans all of `bytes`.
    /// - Throws: `CBORError` for malformed, unsupported, oversized or trailing input.
    package func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORValue {
        guard bytes.count <= maxInputBytes else {
            throw CBORError(.tooLarge, detail: "input of \(bytes.count) bytes")
        }
        var cursor = Cursor(bytes: bytes, offset: 0)
        let value = try item(&cursor, depth: 1)
        guard cursor.offset == bytes.count else {
            throw CBORError(.trailingBytes, detail: "\(bytes.count - cursor.offset) bytes after the item")
        }
        return value
    }

    /// Decodes one data item at the start of `bytes` and returns it with the number of bytes it used.
    /// - Throws: `CBORError` for malformed, unsupported or oversized input.
    package func decodePrefix(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> (value: CBORValue, length: Int) {
        guard bytes.count <= maxInputBytes else { throw CBORError(.tooLarge) }
        var cursor = Cursor(bytes: Array(bytes), offset: 0)
        let value = try item(&cursor, depth: 1)
        return (value, cursor.offset)
    }

    private struct Cursor {
        let bytes: [UInt8]
        var offset: Int

        var remaining: Int { bytes.count - offset }

        mutating func byte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw CBORError(.truncated) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= remaining else { throw CBORError(.truncated, detail: "need \(count), have \(remaining)") }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
    }

    /// Reads the argument of an initial byte (RFC 8949 section 3): the value itself or 1/2/4/8 bytes.
    private func argument(_ info: UInt8, _ cursor: inout Cursor) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24, 25, 26, 27:
            let width = 1 << Int(info - 24)
            var value: UInt64 = 0
            for byte in try cursor.take(width) { value = value << 8 | UInt64(byte) }
            return value
        case 31: throw CBORError(.indefiniteLength)
        default: throw CBORError(.unsupported, detail: "reserved additional info \(info)")
        }
    }

    /// A length that must fit in what remains of the input (so nothing huge is ever allocated).
    private func length(_ info: UInt8, _ cursor: inout Cursor, perItem minimum: Int) throws(CBORError) -> Int {
        let raw = try argument(info, &cursor)
        guard raw <= UInt64(cursor.remaining / max(minimum, 1)) else {
            throw CBORError(.truncated, detail: "declared length \(raw), \(cursor.remaining) bytes left")
        }
        return Int(raw)
    }

    private func item(_ cursor: inout Cursor, depth: Int) throws(CBORError) -> CBORValue {
        let initial = try cursor.byte()
        let major = initial >> 5
        let info = initial & 0x1f
        switch major {
        case 0: return .unsigned(try argument(info, &cursor))
        case 1: return .negative(try argument(info, &cursor))
        case 2: return .bytes(Array(try cursor.take(try length(info, &cursor, perItem: 1))))
        case 3:
            let raw = try cursor.take(try length(info, &cursor, perItem: 1))
            guard let text = String(validating: raw, as: UTF8.self) else { throw CBORError(.invalidUTF8) }
            return .text(text)
        case 4:
            let count = try container(info, &cursor, depth: depth, perItem: 1)
            var items: [CBORValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try item(&cursor, depth: depth + 1)) }
            return .array(items)
        case 5:
            let count = try container(info, &cursor, depth: depth, perItem: 2)
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try item(&cursor, depth: depth + 1)
                if entries.contains(where: { $0.key == key }) { throw CBORError(.duplicateKey) }
                entries.append(CBORMapEntry(key, try item(&cursor, depth: depth + 1)))
            }
            return .map(entries)
        case 6: throw CBORError(.unsupported, detail: "tag")
        default:
            switch info {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 31: throw CBORError(.indefiniteLength, detail: "break outside an indefinite item")
            default: throw CBORError(.unsupported, detail: "simple value or float \(info)")
            }
        }
    }

    private func container(
        _ info: UInt8,
        _ cursor: inout Cursor,
        depth: Int,
        perItem: Int
    ) throws(CBORError) -> Int {
        guard depth < maxDepth else { throw CBORError(.tooDeep, detail: "limit \(maxDepth)") }
        let count = try length(info, &cursor, perItem: perItem)
        guard count <= maxElements else { throw CBORError(.tooLarge, detail: "\(count) elements") }
        return count
    }
}
