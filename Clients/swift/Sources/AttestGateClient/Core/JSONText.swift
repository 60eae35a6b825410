/// JSON text for the one document the client writes (the client data), escaped exactly as the server's
/// serializer escapes: quote, backslash and every control character (`\n`, `\r`, `\t`, else `\u00xx` in
/// lower-case hex), and U+2028 / U+2029; every other character as itself in UTF-8, `/` included.
///
/// The server hashes the bytes it receives and never re-serialises them, so a different but valid spelling
/// would still be accepted; matching the server byte for byte is what lets one known-answer vector hold for
/// both (`Tests/.../Fixtures/wire-vectors.json`, written by the server's own code).
enum JSONText {
    /// `value` as a JSON string literal, quotes included, as UTF-8.
    static func quoted(_ value: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5c: out += Array(#"\\"#.utf8)
            case 0x0a: out += Array(#"\n"#.utf8)
            case 0x0d: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case 0..<0x20, 0x2028, 0x2029:
                out += Array(#"\u"#.utf8)
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.append(hexDigits[Int((scalar.value >> UInt32(shift)) & 0xf)])
                }
            default: out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// An object of string members in the order given (callers pass them sorted by key, as the server
    /// writes them), without blanks.
    static func object(_ members: [(key: String, value: String)]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (index, member) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += quoted(member.key)
            out.append(UInt8(ascii: ":"))
            out += quoted(member.value)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
