internal import Crypto

/// Apple's nonce extension (OID 1.2.840.113635.100.8.2) on the credential certificate.
///
/// Its shape is fixed: `SEQUENCE { [1] EXPLICIT { OCTET STRING (32 bytes) } }`, all short-form DER,
/// so a dozen-line reader does the job and anything else (long-form lengths, extra elements,
/// trailing bytes) is refused. That is a far smaller attack surface than a general ASN.1 parser.
enum NonceExtension {
    static let oid = "1.2.840.113635.100.8.2"

    /// The 32-byte nonce inside the extension value, or nil if the value is not exactly that shape.
    static func nonce(fromExtensionValue value: [UInt8]) -> [UInt8]? {
        var outer = DERReader(value[...], allowLongForm: false)
        guard let sequence = outer.next(tag: 0x30), outer.isAtEnd else { return nil }
        var inSequence = DERReader(sequence, allowLongForm: false)
        guard let tagged = inSequence.next(tag: 0xa1), inSequence.isAtEnd else { return nil }
        var inTagged = DERReader(tagged, allowLongForm: false)
        guard let octets = inTagged.next(tag: 0x04), inTagged.isAtEnd, octets.count == 32 else { return nil }
        return Array(octets)
    }
}
