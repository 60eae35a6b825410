import AttestCore
import CryptoTestSupport
import TestSupport
import Testing

@testable import Crypto

@Suite struct RSAPrivateKeyTests {
    static func fixture(_ name: String) throws -> [UInt8] { try Fixture.bytes(name) }

    static func hexFixture(_ name: String) throws -> [UInt8] {
        try #require(Bytes.fromHex(String(decoding: try fixture(name), as: UTF8.self)))
    }

    @Test func signsRS256KnownAnswerFromOpenSSLCommandLine() throws {
        let key = try RSAPrivateKey(pem: try Self.fixture("test_rsa_2048_pkcs8.pem"))
        #expect(key.bits == 2048)
        let signature = try key.signRS256(try Self.fixture("msg.txt"))
        #expect(signature == (try Self.hexFixture("sig.hex")))
    }

    @Test func exposesThePublicHalfAsSubjectPublicKeyInfo() throws {
        let key = try RSAPrivateKey(pem: try Self.fixture("test_rsa_2048_pkcs8.pem"))
        #expect(key.publicKeyDER == (try Self.hexFixture("pub.hex")))
    }

    @Test func verifiesItsOwnSignatureAndRefusesAChangedMessage() throws {
        let key = try RSAPrivateKey(pem: try Self.fixture("test_rsa_2048_pkcs8.pem"))
        let message = Array("header.claims".utf8)
        let signature = try key.signRS256(message)
        #expect(key.isValidRS256Signature(signature, for: message))
        #expect(!key.isValidRS256Signature(signature, for: Array("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!key.isValidRS256Signature(flipped, for: message))
    }

    @Test func refusesAnECKey() throws {
        #expect(throws: PrivateKeyError(.keyUnsupported)) {
            try RSAPrivateKey(pem: try Self.fixture("test_ec_p256.pem"))
        }
    }

    @Test func refusesAKeyShorterThan2048Bits() throws {
        #expect(throws: PrivateKeyError(.keyUnsupported)) {
            try RSAPrivateKey(pem: try Self.fixture("test_rsa_1024.pem"))
        }
    }

    static let malformed: [String: [UInt8]] = [
        "empty": [],
        "not PEM": Array("not a pem".utf8),
        "bad body": Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8),
        "over 16 KiB": [UInt8](repeating: UInt8(ascii: "A"), count: 17_000),
    ]

    @Test(arguments: malformed.keys.sorted())
    func refusesMalformedPEM(_ name: String) throws {
        let pem = try #require(Self.malformed[name])
        #expect(throws: PrivateKeyError(.keyMalformed)) { try RSAPrivateKey(pem: pem) }
    }

    @Test func refusesATruncatedKey() throws {
        var pem = try Self.fixture("test_rsa_2048_pkcs8.pem")
        pem.removeLast(200)
        #expect(throws: PrivateKeyError(.keyMalformed)) { try RSAPrivateKey(pem: pem) }
    }

    @Test func refusesAnEncryptedKeyWithoutPrompting() throws {
        let pem = try Self.fixture("test_rsa_2048_encrypted.pem")
        #expect(throws: PrivateKeyError(.keyMalformed)) { try RSAPrivateKey(pem: pem) }
    }

    @Test func generatedKeyRoundTripsThroughPKCS8PEM() throws {
        let generated = try GeneratedRSAKey()
        let key = generated.key
        let pem = generated.pkcs8PEM
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reloaded = try RSAPrivateKey(pem: Array(pem.utf8))
        #expect(reloaded.publicKeyDER == key.publicKeyDER)
        let message = Array("abc".utf8)
        #expect(key.isValidRS256Signature(try reloaded.signRS256(message), for: message))
    }

    @Test func wipeZeroesAndEmptiesTheBuffer() {
        var secret: [UInt8] = [1, 2, 3, 4]
        Zeroization.wipe(&secret)
        #expect(secret.isEmpty)
    }
}
