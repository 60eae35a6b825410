import TestSupport
import Testing

@testable import AttestCore

@Suite struct JSONValueTests {
    @Test func parsesAndSerialisesWithSortedKeys() throws {
        let value = try JSONValue.parse(Array(#"{"b":[1,2.5,true,null],"a":"x\"y"}"#.utf8))
        #expect(value.serialized == #"{"a":"x\"y","b":[1,2.5,true,null]}"#)
    }

    @Test func escapesControlCharactersSoALogLineCannotBeSplit() {
        let value = JSONValue.object(["path": .string("/a\n{\"level\":\"error\"}\u{01}")])
        #expect(value.serialized == #"{"path":"/a\n{\"level\":\"error\"}\u0001"}"#)
        #expect(!value.serialized.contains("\n"))
    }

    @Test func rejectsMalformedJSON() {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue.parse(Array("{\"a\":".utf8)) }
    }

    @Test func base64URLRoundTripsAndRejectsStandardAlphabet() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x01]
        let text = Bytes.base64URL(bytes)
        #expect(text == "-__-AQ")
        #expect(Bytes.fromBase64URL(text) == bytes)
        #expect(Bytes.fromBase64URL("+//+AQ") == nil)
    }

    @Test func byteSearchFindsTheFirstMatchWithinItsRange() {
        let text = Array("ab\nabcab\r".utf8)
        text.withUnsafeBufferPointer { buffer in
            #expect(Bytes.offset(of: 0x0A, in: buffer) == 2)
            #expect(Bytes.offset(of: UInt8(ascii: "a"), in: buffer, from: 1) == 3)
            #expect(Bytes.offset(of: 0x0D, in: buffer, from: 0, to: 8) == nil)
            #expect(Bytes.offset(of: 0x0D, in: buffer, from: 8) == 8)
            #expect(Bytes.offset(of: 0x0A, in: buffer, from: 3, to: 3) == nil)
            #expect(Bytes.contains(buffer, Array("abc".utf8)))
            #expect(Bytes.contains(buffer, Array("ab\r".utf8)))  // at the very end, after two false starts
            #expect(!Bytes.contains(buffer, Array("abd".utf8)))
            #expect(!Bytes.contains(buffer, []))
            #expect(!Bytes.contains(buffer, text + [0]))
            // Line ends: the first LF or CR, whichever comes first; the end when there is none.
            #expect(Bytes.lineEnd(in: buffer, from: 0) == 2)
            #expect(Bytes.lineEnd(in: buffer, from: 3) == 8)
            #expect(Bytes.lineEnd(in: buffer, from: 9) == 9)
        }
        Array("a\rb\nc".utf8).withUnsafeBufferPointer { #expect(Bytes.lineEnd(in: $0, from: 0) == 1) }
        #expect(!Bytes.contains(UnsafeBufferPointer(start: nil, count: 0), Array("a".utf8)))
    }

    @Test func hexRoundTrips() {
        #expect(Bytes.fromHex("00ff10Ab") == [0x00, 0xff, 0x10, 0xab])
        #expect(Bytes.fromHex("abc") == nil)
        #expect(Bytes.hex([0x00, 0xff]) == "00ff")
        #expect(Bytes.hex([UInt8]()) == "")
        #expect(Bytes.hex((0...255).map { UInt8($0) }).count == 512)
        #expect(Bytes.hex([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]) == "0123456789abcdef")
        #expect(Bytes.hex(AnySequence([0x0a, 0xb0])) == "0ab0")  // a sequence without contiguous storage
    }

    @Test func loggerWritesOneJSONObjectPerLineWithMetadata() throws {
        let sink = CapturingLogSink()
        let logger = Logger(level: .info, sink: sink).with("requestId", .string("r-1"))
        logger.debug("hidden")
        logger.warning("key rebound", ["device": .string("…abc")])
        #expect(sink.lines.count == 1)
        let line = try #require(sink.objects.first)
        #expect(line["requestId"] == .string("r-1"))
        #expect(line["level"] == .string("WARN"))
        #expect(line["message"] == .string("key rebound"))
    }

    @Test func integersAreWrittenAsTheirDecimalDigits() throws {
        for value: Int64 in [0, 7, -1, 10, 1_000_000, -9_007_199_254_740_993, .max, .min] {
            #expect(JSONValue.int(value).serialized == String(value))
            #expect(try JSONValue.parse(JSONValue.int(value).serializedBytes) == .int(value))
        }
        #expect(JSONValue.array([.int(-5), .int(0)]).serialized == "[-5,0]")
    }

    /// Members listed by precedence come out sorted, each key once: the first listed wins.
    @Test func anObjectFromMembersKeepsTheFirstOfRepeatedKeysInSortedOrder() {
        let text = JSONValue.serializedObject([
            (key: "b", value: .int(1)), (key: "a", value: .string("first")), (key: "c", value: .null),
            (key: "a", value: .string("second")), (key: "b", value: .int(2)),
        ])
        #expect(text == #"{"a":"first","b":1,"c":null}"#)
        #expect(JSONValue.serializedObject([]) == "{}")
    }

    /// A line's level and message win over the call's fields, which win over the logger's metadata,
    /// which wins over the task's.
    @Test func aLogLinesMembersOverrideInOrder() throws {
        let sink = CapturingLogSink()
        let logger = Logger(level: .info, sink: sink).with("route", .string("logger")).with("mode", .string("logger"))
        Logger.$taskMetadata.withValue(["requestId": .string("task"), "route": .string("task")]) {
            logger.info("hello", ["mode": .string("field"), "level": .string("field"), "extra": .int(1)])
        }
        let line = try #require(sink.objects.first)
        #expect(line["requestId"] == .string("task"))
        #expect(line["route"] == .string("logger"))
        #expect(line["mode"] == .string("field"))
        #expect(line["level"] == .string("INFO") && line["message"] == .string("hello"))
        #expect(line["extra"] == .int(1))
        #expect(sink.lines.first?.hasPrefix(#"{"extra":1,"level":"INFO","message":"hello","mode":"field""#) == true)
    }
}
