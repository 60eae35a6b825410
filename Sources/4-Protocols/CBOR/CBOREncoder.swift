/// Encodes `CBORValue`s with the shortest argument encodings and definite lengths (RFC 8949 4.2.1),
/// map entries in the order given. Used by the simulated device to build evidence.
package enum CBOREncoder {
    /// The CBOR encoding of `value`.
    package static func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private static func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): head(0, n, &out)
        case .negative(let n): head(1, n, &out)
        case .bytes(let b):
            head(2, UInt64(b.count), &out)
            out += b
        case .text(let t):
            let utf8 = Array(t.utf8)
            head(3, UInt64(utf8.count), &out)
            out += utf8
        case .array(let items):
            head(4, UInt64(items.count), &out)
            for item in items { append(item, to: &out) }
        case .map(let entries):
            head(5, UInt64(entries.count), &out)
            for entry in entries {
                append(entry.key, to: &out)
                append(entry.value, to: &out)
            }
        case .bool(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        }
    }

    private static func head(_ major: UInt8, _ argument: UInt64, _ out: inout [UInt8]) {
        let type = major << 5
        switch argument {
        case 0..<24: out.append(type | UInt8(argument))
        case 24...0xff: out += [type | 24, UInt8(argument)]
        case 0x100...0xffff: out += [type | 25] + bigEndian(argument, width: 2)
        case 0x1_0000...0xffff_ffff: out += [type | 26] + bigEndian(argument, width: 4)
        default: out += [type | 27] + bigEndian(argument, width: 8)
        }
    }

    private static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
