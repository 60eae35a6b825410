internal import FoundationEssentials

/// Encodings of byte strings used on the wire and in logs.
package enum Bytes {
    /// Standard base64 with padding.
    package static func base64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
    }

    /// Decodes standard base64 (padding required); nil for anything else.
    package static func fromBase64(_ text: some StringProtocol) -> [UInt8]? {
        guard let data = Data(base64Encoded: String(text)) else { return nil }
        return Array(data)
    }

    /// base64url without padding (RFC 4648 section 5), as used in JWTs and table keys.
    package static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        var text = base64(bytes).replacing("+", with: "-").replacing("/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64url with or without padding; nil for anything else (including `+` or `/`).
    package static func fromBase64URL(_ text: some StringProtocol) -> [UInt8]? {
        var unpadded = String(text)
        while unpadded.hasSuffix("=") { unpadded.removeLast() }
        guard !unpadded.contains("+"), !unpadded.contains("/"), !unpadded.contains("=") else { return nil }
        var standard = unpadded.replacing("-", with: "+").replacing("_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return fromBase64(standard)
    }

    /// Lower-case hexadecimal.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable(hex(contiguous:)) { return text }
        return Array(bytes).withUnsafeBufferPointer(hex(contiguous:))
    }

    /// Two digits a byte, written straight into the string's storage.
    private static func hex(contiguous bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigit(byte >> 4)
                out[2 * index + 1] = hexDigit(byte & 0x0f)
            }
            return bytes.count * 2
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Decodes hexadecimal (either case); nil for an odd length or a non-hex character.
    package static func fromHex(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
