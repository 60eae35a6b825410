import AttestCore
import Testing

@testable import Crypto

@Suite struct DigestTests {
    @Test func sha256OfABCMatchesFIPS180() {
        #expect(
            Bytes.hex(Digest.sha256(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
    }

    @Test func sha256OfPartsEqualsSha256OfConcatenation() {
        let parts: [[UInt8]] = [Array("ab".utf8), [], Array("c".utf8)]
        #expect(Digest.sha256(parts: parts) == Digest.sha256(Array("abc".utf8)))
    }

    @Test func sha384OfABCMatchesFIPS180() {
        #expect(
            Bytes.hex(Digest.sha384(Array("abc".utf8)))
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
        )
    }

    @Test func hmacSha256MatchesRFC4231Case2() {
        let mac = HMAC.sha256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Bytes.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeEqualityComparesLengthAndBytes() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2], [1, 2, 3]))
    }

    @Test func secureRandomReturnsRequestedLengthAndVaries() {
        let random = SecureRandom()
        let a = random.bytes(32)
        let b = random.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)
    }
}
