/// Finds the first key that appears twice in one JSON object, anywhere in a document.
///
/// `JSONDecoder` keeps the first of two equal keys where most providers keep the last, so a body with
/// `"model"` twice would be checked under one model and run under another. Runs after the document has
/// parsed (it assumes valid JSON) and compares keys as Swift strings, as the decoded dictionary does.
enum DuplicateKeys {
    /// - Parameter json: a document `JSONValue.parse` accepted.
    /// - Returns: the first repeated key, or `nil`.
    static func first(in json: [UInt8]) -> String? {
        var containers: [Container] = []
        var index = 0
        while index < json.count {
            let byte = json[index]
            switch byte {
            case UInt8(ascii: "{"): containers.append(Container(isObject: true))
            case UInt8(ascii: "["): containers.append(Container(isObject: false))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = containers.popLast()
            case UInt8(ascii: ","):
                if containers.last?.isObject == true { containers[containers.count - 1].expectsKey = true }
            case UInt8(ascii: "\""):
                let end = stringEnd(json, from: index)
                if let last = containers.last, last.isObject, last.expectsKey {
                    let key = decodeString(json[(index + 1)..<end])
                    if !containers[containers.count - 1].keys.insert(key).inserted { return key }
                    containers[containers.count - 1].expectsKey = false
                }
                index = end
            default: break
            }
            index += 1
        }
        return nil
    }

    private struct Container {
        let isObject: Bool
        var expectsKey: Bool
        var keys: Set<String> = []

        init(isObject: Bool) {
            self.isObject = isObject
            self.expectsKey = isObject
        }
    }

    /// The index of the closing quote of the string opening at `start`.
    private static func stringEnd(_ json: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < json.count, json[index] != UInt8(ascii: "\"") {
            index += json[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return min(index, json.count - 1)
    }

    /// The string a JSON string body (between the quotes) denotes (RFC 8259 section 7).
    private static func decodeString(_ body: ArraySlice<UInt8>) -> String {
        guard body.contains(UInt8(ascii: "\\")) else { return String(decoding: body, as: UTF8.self) }
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        var index = body.startIndex
        func flush() {
            scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars)
            bytes.removeAll(keepingCapacity: true)
        }
        while index < body.endIndex {
            guard body[index] == UInt8(ascii: "\\"), index + 1 < body.endIndex else {
                bytes.append(body[index])
                index += 1
                continue
            }
            let escape = body[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                var unit = hex4(body, at: index)
                index += 4
                if (0xD800..<0xDC00).contains(unit), index + 6 <= body.endIndex, body[index] == UInt8(ascii: "\\") {
                    let low = hex4(body, at: index + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        index += 6
                    }
                }
                flush()
                scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
            default: bytes.append(escape)  // \" \\ \/
            }
        }
        flush()
        return String(scalars)
    }

    private static func hex4(_ body: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 where index + offset < body.endIndex {
            let byte = body[index + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: digit = 0
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
