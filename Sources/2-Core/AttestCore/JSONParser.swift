/// RFC 8259 JSON text straight into a `JSONValue`, in one pass over the UTF-8 bytes.
///
/// The same values as decoding `JSONValue` through `JSONDecoder` (which `JSONValue.parse` used before;
/// `JSONParserTests` compares the two), its leniencies included: a number is `.int` when it is an
/// integer within `Int64` or a fraction or exponent with an exact `Int64` value (`1.0`, `1e3`), and
/// `.double` otherwise; of repeated keys in an object the first one counts; one trailing comma before
/// `]` or `}` and a leading UTF-8 byte order mark are accepted. A number beyond `Double`'s range, a
/// lone UTF-16 surrogate escape, invalid UTF-8, an unescaped control character, more than `maxDepth`
/// nested arrays and objects, or anything after the value but whitespace is malformed. Input is UTF-8
/// only (RFC 8259 section 8.1).
struct JSONParser {
    /// Nested arrays and objects allowed (JSONDecoder's limit).
    static let maxDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> JSONValue {
        var parser = JSONParser(bytes)
        if bytes.count >= 3, bytes[0] == 0xef, bytes[1] == 0xbb, bytes[2] == 0xbf { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw JSONValue.ParseError() }
        return value
    }

    private mutating func value() throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw JSONValue.ParseError() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw JSONValue.ParseError()
        }
    }

    /// The members are gathered first and the dictionary built once at its final size (one hash per
    /// key, no rehashing as it grows); of repeated keys the first one counts.
    private mutating func object() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object([:])
        }
        var members: [(String, JSONValue)] = []
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw JSONValue.ParseError() }
            let key = try string()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw JSONValue.ParseError() }
            index += 1
            skipWhitespace()
            members.append((key, try value()))
            if try closesAfterElement(UInt8(ascii: "}")) { break }
        }
        depth -= 1
        return .object(Dictionary(members, uniquingKeysWith: { first, _ in first }))
    }

    private mutating func array() throws(JSONValue.ParseError) -> JSONValue {
        try enter()
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            elements.append(try value())
            if try closesAfterElement(UInt8(ascii: "]")) { break }
        }
        depth -= 1
        return .array(elements)
    }

    /// After an element or member: a comma (then another one, or `closing` after one trailing comma, as
    /// JSONDecoder allows) or `closing`. Steps past what it read; true when the container ended.
    private mutating func closesAfterElement(_ closing: UInt8) throws(JSONValue.ParseError) -> Bool {
        skipWhitespace()
        let next = try peek()
        index += 1
        if next == closing { return true }
        guard next == UInt8(ascii: ",") else { throw JSONValue.ParseError() }
        skipWhitespace()
        guard try peek() == closing else { return false }
        index += 1
        return true
    }

    /// Steps into an array or object (past its opening bracket), within `maxDepth`.
    private mutating func enter() throws(JSONValue.ParseError) {
        depth += 1
        guard depth <= Self.maxDepth else { throw JSONValue.ParseError() }
        index += 1
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw JSONValue.ParseError() }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw JSONValue.ParseError()
        }
        index += count
        return value
    }

    /// A string from its opening quote; runs without escapes are taken whole, and ASCII ones (nearly all
    /// keys and values) without a second pass to validate their UTF-8.
    private mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        var bits: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[start..<index])
                let text = bits < 0x80 ? String(decoding: run, as: UTF8.self) : try Self.text(run)
                index += 1
                return text
            }
            bits |= byte
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw JSONValue.ParseError() }
            index += 1
        }
        throw JSONValue.ParseError()
    }

    /// The rest of a string that has an escape at `index`; `start` is its first byte.
    private mutating func escapedString(from start: Int) throws(JSONValue.ParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try scratch.withUnsafeBufferPointer { buffer throws(JSONValue.ParseError) in
                    try Self.text(buffer)
                }
            case UInt8(ascii: "\\"):
                index += 1
                try unescape()
            case 0..<0x20:
                throw JSONValue.ParseError()
            default:
                scratch.append(byte)
                index += 1
            }
        }
        throw JSONValue.ParseError()
    }

    /// One escape after its backslash, appended to `scratch` as UTF-8.
    private mutating func unescape() throws(JSONValue.ParseError) {
        let escape = try peek()
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0c)
        case UInt8(ascii: "n"): scratch.append(0x0a)
        case UInt8(ascii: "r"): scratch.append(0x0d)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xd800..<0xdc00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw JSONValue.ParseError() }
                index += 2
                let low = UInt32(try hex4())
                guard (0xdc00..<0xe000).contains(low) else { throw JSONValue.ParseError() }
                scalar = 0x10000 + ((scalar - 0xd800) << 10) + (low - 0xdc00)
            } else if (0xdc00..<0xe000).contains(scalar) {
                throw JSONValue.ParseError()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw JSONValue.ParseError() }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw JSONValue.ParseError()
        }
    }

    private mutating func hex4() throws(JSONValue.ParseError) -> UInt16 {
        guard bytes.count - index >= 4 else { throw JSONValue.ParseError() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONValue.ParseError()
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let integerStart = index
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw JSONValue.ParseError() }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        let integerEnd = index
        var integral = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            try digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try digits()
        }
        if integral, let value = Self.int64(bytes[integerStart..<integerEnd], negative: negative) {
            return .int(value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw JSONValue.ParseError() }
        // An integer beyond Int64 stays a Double; a fraction or exponent with an integer value does not.
        if !integral, let exact = Int64(exactly: double) { return .int(exact) }
        return .double(double)
    }

    private mutating func digits() throws(JSONValue.ParseError) {
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw JSONValue.ParseError() }
        while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
    }

    /// The decimal digits as an Int64, nil when out of range.
    private static func int64(_ digits: Slice<UnsafeBufferPointer<UInt8>>, negative: Bool) -> Int64? {
        var value: Int64 = 0
        for digit in digits {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            // Accumulated negative, so Int64.min is reachable.
            let (sum, overflow2) = times.subtractingReportingOverflow(Int64(digit - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            value = sum
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func text(_ utf8: UnsafeBufferPointer<UInt8>) throws(JSONValue.ParseError) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw JSONValue.ParseError() }
        return text
    }

    private func peek() throws(JSONValue.ParseError) -> UInt8 {
        guard index < bytes.count else { throw JSONValue.ParseError() }
        return bytes[index]
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0a, 0x0d: index += 1
            default: return
            }
        }
    }
}
