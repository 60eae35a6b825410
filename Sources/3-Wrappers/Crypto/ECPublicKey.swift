/// An ECDSA public key on P-256 or P-384, the only key types App Attest and DeviceCheck use.
package struct ECPublicKey: Sendable, Hashable {
    /// The curves we accept. Anything else (RSA, Ed25519, other curves) is refused at parse time.
    package enum Curve: String, Sendable {
        case p256 = "prime256v1"
        case p384 = "secp384r1"

        /// Bytes of an uncompressed X9.62 point `04 ‖ X ‖ Y`.
        var pointLength: Int { self == .p256 ? 65 : 97 }
    }

    package let curve: Curve
    /// DER SubjectPublicKeyInfo.
    package let derRepresentation: [UInt8]
    /// X9.62 uncompressed point `04 ‖ X ‖ Y`.
    package let x962Representation: [UInt8]
    /// OpenSSL's key object, made when first needed.
    let key: LazyEVPKey

    /// Parses a DER SubjectPublicKeyInfo; the whole input must be consumed.
    /// - Throws: `crypto.der_malformed`, or `crypto.key_unsupported` for a non-EC key or another curve.
    package init(derRepresentation der: [UInt8]) throws(CryptoError) {
        self = try Self.parse(spki: der)
    }

    /// Builds a P-256 key from its X9.62 uncompressed point (65 bytes); the point must be on the curve.
    /// - Throws: `crypto.der_malformed` for a wrong length or prefix, `crypto.key_unsupported` for a point
    ///   off the curve.
    package init(p256X962 point: [UInt8]) throws(CryptoError) {
        guard point.count == 65, point[0] == 0x04 else {
            throw CryptoError(.derMalformed, detail: "not a 65-byte uncompressed P-256 point")
        }
        self = try Self.build(curve: .p256, point: point)
    }

    /// Accepts either form: DER SPKI or a 65-byte X9.62 P-256 point.
    /// - Throws: as the two specific initialisers do.
    package init(derOrX962 bytes: [UInt8]) throws(CryptoError) {
        if bytes.count == 65 && bytes.first == 0x04 {
            try self.init(p256X962: bytes)
        } else {
            try self.init(derRepresentation: bytes)
        }
    }

    init(key: LazyEVPKey, curve: Curve, der: [UInt8], x962: [UInt8]) {
        self.key = key
        self.curve = curve
        self.derRepresentation = der
        self.x962Representation = x962
    }

    /// Verifies an ECDSA signature (DER `Ecdsa-Sig-Value`) over `message`, hashed with SHA-256.
    /// - Returns: true only for a valid signature; malformed signatures are simply invalid.
    package func isValidSHA256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        verifySHA256(signature: signature, message: message)
    }

    /// The fixed DER prefix of a SubjectPublicKeyInfo for a named curve and an uncompressed point:
    /// `SEQUENCE { SEQUENCE { id-ecPublicKey, curve OID }, BIT STRING (0 unused bits) }`.
    static func spkiPrefix(_ curve: Curve) -> [UInt8] { curve == .p256 ? p256SPKIPrefix : p384SPKIPrefix }

    static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]
    static let p384SPKIPrefix: [UInt8] = [
        0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01,
        0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00,
    ]

    package static func == (lhs: ECPublicKey, rhs: ECPublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }
    package func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
}
