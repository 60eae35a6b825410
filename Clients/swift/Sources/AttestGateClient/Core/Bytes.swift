#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Byte encodings of the wire format (docs/api.md section 2): standard base64 with padding, lower-case hex.
enum Bytes {
    /// Standard base64 (RFC 4648 section 4) with padding, as every header and body value of the API.
    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// Decodes standard base64 with padding; nil for anything else (no blanks, no URL alphabet).
    static func fromBase64(_ text: String) -> [UInt8]? {
        guard text.utf8.count % 4 == 0, let data = Data(base64Encoded: text) else { return nil }
        return [UInt8](data)
    }

    /// Lower-case hex, two digits a byte.
    static func hex(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
