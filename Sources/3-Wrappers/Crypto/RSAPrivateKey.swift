/// An RSA private key, as Google service-account JSON carries it (PKCS#8 PEM), used to sign RS256 JWTs.
///
/// The key lives in one OpenSSL `EVP_PKEY` owned by a private class; the value type is cheap to copy and
/// safe to share between tasks because the key is never mutated after it is parsed.
package struct RSAPrivateKey: Sendable {
    let storage: PKCS8KeyStorage

    /// Parses a PEM private key (`BEGIN PRIVATE KEY`, PKCS#8; `BEGIN RSA PRIVATE KEY` is accepted too).
    ///
    /// The caller's PEM bytes are not modified; wipe them with `Zeroization.wipe(_:)` afterwards.
    /// - Parameter pem: the PEM text as UTF-8 bytes (at most 16 KiB).
    /// - Throws: `PrivateKeyError` with `crypto.key_malformed` or `crypto.key_unsupported` (not RSA, or
    ///   shorter than 2048 bits).
    package init(pem: [UInt8]) throws(PrivateKeyError) {
        storage = try PKCS8KeyStorage(pem: pem, expecting: .rsa)
        guard storage.bits >= 2048 else {
            throw PrivateKeyError(.keyUnsupported, detail: "RSA key of \(storage.bits) bits")
        }
    }

    /// The modulus size in bits.
    package var bits: Int { storage.bits }

    /// RSASSA-PKCS1-v1_5 with SHA-256 over `message` (JWS `RS256`, RFC 7518 section 3.3).
    /// - Returns: the signature, as many bytes as the modulus.
    /// - Throws: `PrivateKeyError` with `crypto.sign_failed` if OpenSSL refuses.
    package func signRS256(_ message: [UInt8]) throws(PrivateKeyError) -> [UInt8] {
        try storage.signSHA256(message)
    }

    /// Verifies an RS256 signature with this key's public half (tests and self-checks).
    package func isValidRS256Signature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        storage.verifySHA256(signature, message)
    }

    /// The public half as DER SubjectPublicKeyInfo.
    package var publicKeyDER: [UInt8] { storage.publicKeyDER() }

}
