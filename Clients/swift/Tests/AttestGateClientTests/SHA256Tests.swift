import Testing

@testable import AttestGateClient

/// The library's own SHA-256 against FIPS 180-2's examples (and the empty message).
@Suite struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownAnswers(message: String, digest: String) {
        #expect(Bytes.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    @Test func aMillionAs() {
        let digest = SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(Bytes.hex(digest) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func everyLengthAroundTheBlockEdgesPadsIntoWholeBlocks() {
        // 55, 56 and 64 bytes change the number of padding blocks; the hashes must all differ.
        let digests = Set([55, 56, 57, 63, 64, 65].map { SHA256.hash([UInt8](repeating: 0x61, count: $0)) })
        #expect(digests.count == 6)
        #expect(digests.allSatisfy { $0.count == 32 })
    }
}
