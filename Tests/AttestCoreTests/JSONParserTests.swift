import FoundationEssentials
import Testing

@testable import AttestCore

/// `JSONValue.parse` (our `JSONParser`) against decoding `JSONValue` through `JSONDecoder`, which it
/// replaced: the same value for every document, and a refusal for every malformed one.
@Suite struct JSONParserTests {
    /// What `JSONValue.parse` did before: the `Codable` conformance through `JSONDecoder`.
    static func reference(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    static func ours(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONValue.parse(bytes)
    }

    static func expectSame(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        #expect(ours(bytes) == reference(bytes), "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func numbersAreIntWhenExactLikeJSONDecoder() {
        for text in [
            "0", "-0", "1", "-1", "1.0", "1.5", "-0.0", "1e3", "1E3", "1e-3", "2.5e+2", "123456789012",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
            "12345678901234567890", "1e18", "1e19", "0.1", "3.141592653589793", "5e-324", "1.7976931348623157e308",
            "1e309", "-1e309", "1e400", "00", "01", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "1.2.3", "--1",
            "[1,-2.5,3e2]", "{\"a\":1.0}",
        ] {
            Self.expectSame(text)
        }
        #expect(Self.ours(Array("1.0".utf8)) == .int(1))
        #expect(Self.ours(Array("1.5".utf8)) == .double(1.5))
        #expect(Self.ours(Array("-9223372036854775808".utf8)) == .int(.min))
    }

    @Test func stringsAndEscapesLikeJSONDecoder() {
        for text in [
            #""""#, #""abc""#, #""a\"b""#, #""\\\/\b\f\n\r\t""#, #""\u0041\u00e9\u20ac""#, #""\ud83d\ude00""#,
            #""\uD83D\uDE00""#, #""\ud83d""#, #""\ude00""#, #""\ud83dx""#, #""\ud83d\u0041""#, #""\u12""#,
            #""\u12g4""#, #""\x""#, #""\""#, "\"a\u{7f}b\"", "\"tab\there\"", "\"line\nbreak\"", "\"nul\u{0}\"",
            "\"é€😀\"", "\"\u{2028}\"", #""unterminated"#, #""a"b""#,
        ] {
            Self.expectSame(text)
        }
        // Invalid UTF-8 inside a string, and a lone continuation byte.
        for bytes: [UInt8] in [
            [0x22, 0xff, 0x22], [0x22, 0x80, 0x22], [0x22, 0xc3, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22],
        ] {
            #expect(Self.ours(bytes) == nil)
            #expect(Self.reference(bytes) == nil)
        }
    }

    @Test func structureAndWhitespaceLikeJSONDecoder() {
        for text in [
            "{}", "[]", " { } ", "\t[\n1 ,\r2 ]\n", "null", "true", "false", "nul", "tru", "falsey", "[1,]", "[,1]",
            "{\"a\":1,}", "{,}", "{\"a\"}", "{\"a\":}", "{1:2}", "{\"a\":1 \"b\":2}", "[1 2]", "[", "]", "{", "}",
            "", " ", "[1]x", "[1] [2]", "{\"a\":{\"b\":[true,false,null,{\"c\":\"d\"}]}}", "\u{feff}{}",
            "[\"a\",{\"b\":[]},[[[]]]]", "{\"k\":\"v\",\"n\":null,\"e\":[]}",
        ] {
            Self.expectSame(text)
        }
    }

    @Test func repeatedKeysKeepTheFirstLikeJSONDecoder() {
        Self.expectSame(#"{"a":1,"a":2}"#)
        Self.expectSame(#"{"a":{"x":1},"b":0,"a":[2]}"#)
        #expect(Self.ours(Array(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .int(1)]))
    }

    /// JSONDecoder's leniencies, kept: one trailing comma, and a byte order mark first.
    @Test func aTrailingCommaAndALeadingByteOrderMarkLikeJSONDecoder() {
        for text in [
            "[1,]", "{\"a\":1,}", "[1, ]", "{\"a\":1 , }", "[1,,]", "[1,,2]", "{\"a\":1,,}", "[,]", "{,}", "[,1]",
            "[[1,],]", "\u{feff}{}", "\u{feff}[1]", " \u{feff}{}", "\u{feff}\u{feff}{}", "[\u{feff}1]", "\u{feff}",
        ] {
            Self.expectSame(text)
        }
        #expect(Self.ours(Array("[1,]".utf8)) == .array([.int(1)]))
    }

    @Test func nestingIsBoundedLikeJSONDecoder() {
        for depth in [1, 100, 511, 512, 513, 600, 100_000] {
            let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let bytes = Array(arrays.utf8)
            #expect((Self.ours(bytes) == nil) == (depth > JSONParser.maxDepth), "depth \(depth)")
            if depth <= 600 { #expect(Self.ours(bytes) == Self.reference(bytes), "depth \(depth)") }
        }
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(Self.ours(Array(objects.utf8)) == nil)
    }

    /// Real documents: every JSON fixture under Tests/ (API Gateway events, Apple and AWS test vectors).
    @Test func everyJSONFixtureParsesTheSame() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root.path)
        var checked = 0
        for path in paths.sorted() where path.hasSuffix(".json") {
            let bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
            #expect(Self.ours(bytes) == Self.reference(bytes), "\(path)")
            checked += 1
        }
        #expect(checked >= 20)
    }

    /// Random documents (seeded), and every one of them cut short and with a byte changed.
    @Test func randomDocumentsAndTheirMutationsParseTheSame() {
        var random = SplitMix(seed: 0x5eed)
        for _ in 0..<400 {
            let value = Self.randomValue(&random, depth: 0)
            let bytes = value.serializedBytes
            #expect(Self.ours(bytes) == value)
            #expect(Self.ours(bytes) == Self.reference(bytes))
            guard bytes.count > 1 else { continue }
            let cut = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            #expect(Self.ours(cut) == Self.reference(cut), "\(String(decoding: cut, as: UTF8.self))")
            var changed = bytes
            let position = Int(random.next() % UInt64(bytes.count))
            let replacements: [UInt8] = Array(#"{}[]",:\.-+eE0 9tfnu"#.utf8) + [0x00, 0x0a, 0x80, 0xff]
            changed[position] = replacements[Int(random.next() % UInt64(replacements.count))]
            #expect(Self.ours(changed) == Self.reference(changed), "\(String(decoding: changed, as: UTF8.self))")
        }
    }

    @Test func serialisationIsTheSameTextAsBefore() {
        let value = JSONValue.object([
            "quote\"back\\slash": .string("a\u{0}b\u{1f}c\u{7f}d\u{2028}e\u{2029}f\t\n\r/é€😀"),
            "numbers": .array([.int(-7), .double(0.1), .double(-2.5e-300), .double(.infinity), .null, .bool(true)]),
            "": .object([:]),
        ])
        #expect(
            value.serialized
                == #"{"":{},"numbers":[-7,0.1,-2.5e-300,null,null,true],"#
                + #""quote\"back\\slash":"a\u0000b\u001fc\#u{7f}d\u2028e\u2029f\t\n\r/é€😀"}"#
        )
        #expect(value.serializedBytes == Array(value.serialized.utf8))
    }

    static func randomValue(_ random: inout SplitMix, depth: Int) -> JSONValue {
        let kinds: UInt64 = depth > 4 ? 5 : 7
        switch random.next() % kinds {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: random.next()) >> (random.next() % 64))
        case 3:
            let double = Double(bitPattern: random.next())
            return double.isFinite && Int64(exactly: double) == nil ? .double(double) : .double(0.5)
        case 4:
            let pieces = ["a", "é", "€", "😀", "\"", "\\", "\n", "\u{1}", "\u{2028}", " ", "xyz", "\u{7f}"]
            let count = Int(random.next() % 6)
            return .string((0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined())
        case 5:
            let count = Int(random.next() % 4)
            return .array((0..<count).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int(random.next() % 4) {
                members["k\(index)\(random.next() % 3 == 0 ? "é\\" : "")"] = randomValue(&random, depth: depth + 1)
            }
            return .object(members)
        }
    }
}

/// A small seeded generator (SplitMix64), so a failure is reproducible.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
