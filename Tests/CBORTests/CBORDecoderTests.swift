import Testing

@testable import CBOR

@Suite struct CBORDecoderTests {
    let decoder = CBORDecoder()

    @Test func decodesRFC8949AppendixAExamples() throws {
        #expect(try decoder.decode([0x00]) == .unsigned(0))
        #expect(try decoder.decode([0x18, 0x64]) == .unsigned(100))
        #expect(try decoder.decode([0x1b, 0, 0, 0, 0xe8, 0xd4, 0xa5, 0x10, 0x00]) == .unsigned(1_000_000_000_000))
        #expect(try decoder.decode([0x38, 0x63]) == .negative(99))  // -100
        #expect(try decoder.decode([0x44, 1, 2, 3, 4]) == .bytes([1, 2, 3, 4]))
        #expect(try decoder.decode([0x64, 0x49, 0x45, 0x54, 0x46]) == .text("IETF"))
        #expect(try decoder.decode([0x83, 0x01, 0x02, 0x03]) == .array([.unsigned(1), .unsigned(2), .unsigned(3)]))
        #expect(try decoder.decode([0xf4]) == .bool(false))
        #expect(try decoder.decode([0xf6]) == .null)
        let map = try decoder.decode([0xa2, 0x61, 0x61, 0x01, 0x61, 0x62, 0x82, 0x02, 0x03])
        #expect(map["a"] == .unsigned(1))
        #expect(map["b"] == .array([.unsigned(2), .unsigned(3)]))
    }

    @Test func encoderRoundTripsThroughTheDecoder() throws {
        let value: CBORValue = .map([
            CBORMapEntry(.text("fmt"), .text("apple-appattest")),
            CBORMapEntry(.negative(1), .bytes([UInt8](repeating: 7, count: 300))),
            CBORMapEntry(.unsigned(70_000), .array([.bool(true), .null, .unsigned(UInt64.max)])),
        ])
        let encoded = CBOREncoder.encode(value)
        #expect(try decoder.decode(encoded) == value)
        #expect(CBOREncoder.encode(.unsigned(23)) == [0x17])
        #expect(CBOREncoder.encode(.unsigned(24)) == [0x18, 0x18])
        #expect(CBOREncoder.encode(.negative(0)) == [0x20])
    }

    @Test(arguments: [
        ([0x18] as [UInt8], CBORError.Reason.truncated),  // argument byte missing
        ([0x44, 1, 2], .truncated),  // byte string shorter than declared
        ([0x83, 0x01, 0x02], .truncated),  // array with a missing element
        ([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], .truncated),  // huge declared length
        ([0x9b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], .truncated),  // huge declared count
        ([0x01, 0x02], .trailingBytes),
        ([0x5f, 0x41, 0x00, 0xff], .indefiniteLength),
        ([0xbf, 0xff], .indefiniteLength),
        ([0xff], .indefiniteLength),
        ([0xc0, 0x00], .unsupported),  // tag
        ([0xf9, 0x3c, 0x00], .unsupported),  // half-precision float
        ([0xf7], .unsupported),  // undefined
        ([0x1c], .unsupported),  // reserved additional info
        ([0x62, 0xc3, 0x28], .invalidUTF8),
        ([0xa2, 0x01, 0x01, 0x01, 0x02], .duplicateKey),
        ([], .truncated),
    ])
    func refusesMalformedInput(bytes: [UInt8], reason: CBORError.Reason) {
        #expect(throws: CBORError(reason)) { try decoder.decode(bytes) }
    }

    @Test func refusesNestingBeyondTheLimit() throws {
        let limited = CBORDecoder(maxDepth: 4)
        #expect(try limited.decode([0x81, 0x81, 0x81, 0x00]) == .array([.array([.array([.unsigned(0)])])]))
        #expect(throws: CBORError(.tooDeep)) { try limited.decode([0x81, 0x81, 0x81, 0x81, 0x00]) }
        let deep = [UInt8](repeating: 0x81, count: 100_000) + [0x00]
        #expect(throws: CBORError(.tooLarge)) { try decoder.decode(deep) }
        #expect(throws: CBORError(.tooDeep)) { try CBORDecoder(maxInputBytes: 200_000).decode(deep) }
    }

    @Test func refusesTooManyElementsAndTooLargeInput() {
        let limited = CBORDecoder(maxElements: 2, maxInputBytes: 8)
        #expect(throws: CBORError(.tooLarge)) { try limited.decode([0x83, 0x01, 0x02, 0x03]) }
        #expect(throws: CBORError(.tooLarge)) { try limited.decode([0x49] + [UInt8](repeating: 0, count: 9)) }
    }

    @Test func everyTruncationOfAValidItemIsRefusedWithoutACrash() {
        let encoded = CBOREncoder.encode(
            .map([
                CBORMapEntry(.text("authData"), .bytes([UInt8](repeating: 1, count: 40))),
                CBORMapEntry(.text("x5c"), .array([.bytes([1, 2, 3]), .bytes([4])])),
            ])
        )
        for length in 0..<encoded.count {
            #expect(throws: CBORError.self) { try decoder.decode(Array(encoded.prefix(length))) }
        }
    }

    @Test func decodePrefixReportsTheLengthUsed() throws {
        let (value, length) = try decoder.decodePrefix([0x82, 0x01, 0x02, 0xff, 0xee][...])
        #expect(value == .array([.unsigned(1), .unsigned(2)]))
        #expect(length == 3)
    }
}
