extension JSONValue {
    /// Compact JSON text with object keys in sorted order, so equal values serialise identically.
    package var serialized: String { String(decoding: serializedBytes, as: UTF8.self) }

    /// `serialized` of an object given as its members, listed by precedence: of repeated keys the first
    /// one counts (what a caller merging several dictionaries into one would otherwise build first).
    package static func serializedObject(_ members: [(key: String, value: JSONValue)]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        writeObject(members, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The UTF-8 bytes of `serialized`, written as bytes (no `String` is built on the way).
    package var serializedBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .int(let value): Self.writeInteger(value, to: &out)
        case .double(let value): out.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
        case .string(let value): Self.writeString(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            Self.writeObject(members.map { (key: $0.key, value: $0.value) }, to: &out)
        }
    }

    /// The members sorted by key (the first of equal keys kept), each value written once: no second
    /// lookup per key.
    private static func writeObject(_ members: [(key: String, value: JSONValue)], to out: inout [UInt8]) {
        let order = members.indices.sorted { left, right in
            let (a, b) = (members[left].key, members[right].key)
            return a == b ? left < right : a < b
        }
        out.append(UInt8(ascii: "{"))
        var previous: String?
        for index in order {
            let member = members[index]
            if let previous, previous == member.key { continue }
            if previous != nil { out.append(UInt8(ascii: ",")) }
            previous = member.key
            writeString(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            member.value.write(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Decimal digits straight into `out` (no String on the way).
    private static func writeInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as UInt64, so Int64.min has one too.
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[start...])
        }
    }

    /// Escapes per RFC 8259 section 7: quotes, backslash and every control character, and U+2028 and
    /// U+2029 (line breaks to JavaScript); runs of other bytes are copied whole.
    private static func writeString(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var run = 0
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                let escape: (length: Int, scalar: UInt32)?
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0..<0x20: escape = (1, UInt32(byte))
                case 0xe2
                where index + 2 < utf8.count && utf8[index + 1] == 0x80
                    && (utf8[index + 2] == 0xa8 || utf8[index + 2] == 0xa9):
                    escape = (3, 0x2000 | UInt32(utf8[index + 2] - 0xa8 + 0x28))
                default: escape = nil
                }
                guard let escape else {
                    index += 1
                    continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
                switch escape.scalar {
                case 0x22: out.append(contentsOf: #"\""#.utf8)
                case 0x5c: out.append(contentsOf: #"\\"#.utf8)
                case 0x0a: out.append(contentsOf: #"\n"#.utf8)
                case 0x0d: out.append(contentsOf: #"\r"#.utf8)
                case 0x09: out.append(contentsOf: #"\t"#.utf8)
                default:
                    out.append(contentsOf: #"\u"#.utf8)
                    for shift in stride(from: 12, through: 0, by: -4) {
                        out.append(Self.hexDigits[Int((escape.scalar >> UInt32(shift)) & 0xf)])
                    }
                }
                index += escape.length
                run = index
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
