/// An imported EC private key (PEM), for signing: the DeviceCheck ES256 JWT in the product; evidence and
/// certificates in test support, which also generates keys (Tests/Support/CryptoTestSupport).
///
/// Verification code never needs one.
package struct PrivateKey: Sendable {
    /// The curve of the key.
    package enum Kind: Sendable {
        case p256, p384
    }

    package let kind: Kind
    let owner: EVPKeyOwner

    init(kind: Kind, owner: EVPKeyOwner) {
        self.kind = kind
        self.owner = owner
    }

    /// Imports an EC private key from PEM (PKCS#8 or SEC1); the kind follows the curve.
    /// - Throws: `crypto.der_malformed`, or `crypto.key_unsupported` for keys not on P-256/P-384.
    package init(pemRepresentation pem: String) throws(CryptoError) {
        self = try Self.importEC(pem: pem)
    }

    /// The private key as PKCS#8 PEM.
    package var pemRepresentation: String { pkcs8PEM() }

    /// DER SubjectPublicKeyInfo of the public half.
    package var publicKeyDER: [UInt8] { publicDER() }

    /// An ECDSA signature over `SHA-256(message)`, DER-encoded (test support, benches).
    /// - Throws: `crypto.internal` if OpenSSL fails.
    package func signatureSHA256(for message: [UInt8]) throws(CryptoError) -> [UInt8] { try signSHA256(message) }
}
