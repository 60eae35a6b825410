/// A freshly generated or imported private key, for signing certificates, evidence and JWTs.
///
/// Only the simulated device, test support and ES256 JWT signing use private keys; verification code
/// never needs one.
package struct PrivateKey: Sendable {
    /// Key types we can generate. RSA exists only so tests can present a non-EC certificate.
    package enum Kind: Sendable {
        case p256, p384, rsa2048
    }

    package let kind: Kind
    let owner: EVPKeyOwner

    /// Generates a new key of `kind` from OpenSSL's CSPRNG.
    /// - Throws: `crypto.internal` if OpenSSL cannot generate it.
    package init(generating kind: Kind) throws(CryptoError) {
        self.kind = kind
        self.owner = try Self.generate(kind)
    }

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

    /// An ECDSA (or RSA PKCS#1) signature over `SHA-256(message)`, DER-encoded (test support, benches).
    /// - Throws: `crypto.internal` if OpenSSL fails.
    package func signatureSHA256(for message: [UInt8]) throws(CryptoError) -> [UInt8] { try signSHA256(message) }
}
