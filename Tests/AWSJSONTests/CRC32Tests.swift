import AWSJSON
import Testing

@Suite struct CRC32Tests {
    @Test func knownAnswers() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)  // the CRC-32 check value
        #expect(CRC32.checksum([UInt8]()) == 0)
        // zlib.crc32(b'{"Item":{"PK":{"S":"a"}}}') computed with Python.
        #expect(CRC32.checksum(Array(#"{"Item":{"PK":{"S":"a"}}}"#.utf8)) == 1_676_181_308)
    }

    @Test func headerCheck() {
        let body = Array(#"{"Item":{"PK":{"S":"a"}}}"#.utf8)
        #expect(CRC32.matches(header: "1676181308", body: body))
        #expect(CRC32.matches(header: nil, body: body))
        #expect(!CRC32.matches(header: "1676181309", body: body))
        #expect(!CRC32.matches(header: "not-a-number", body: body))
        #expect(!CRC32.matches(header: "1676181308", body: body + [0x20]))
        #expect(CRC32.matches(header: "  1676181308", body: body))
        #expect(!CRC32.matches(header: " \u{301}1676181308", body: body))
        #expect(!CRC32.matches(header: "", body: body))
    }
}
