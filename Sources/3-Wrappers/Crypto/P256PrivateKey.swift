/// A P-256 private key that signs with ECDSA-SHA256 (ES256): the simulated device's attested key and
/// the DeviceCheck JWT key.
package struct P256PrivateKey: Sendable {
    let key: PrivateKey

    /// Wraps a generic key already known to be P-256.
    package init(_ key: PrivateKey) throws(CryptoError) {
        guard key.kind == .p256 else { throw CryptoError(.keyUnsupported, detail: "private key is not P-256") }
        self.key = key
    }

    /// The generic key (to issue certificates for it, for example).
    package var privateKey: PrivateKey { key }

    /// Imports a PEM private key (`BEGIN PRIVATE KEY` PKCS#8, as Apple's `.p8` files, or `BEGIN EC PRIVATE KEY`).
    /// - Throws: `crypto.der_malformed` for bad PEM/DER, `crypto.key_unsupported` for a key that is not P-256.
    package init(pemRepresentation pem: String) throws(CryptoError) {
        let key = try PrivateKey(pemRepresentation: pem)
        guard key.kind == .p256 else { throw CryptoError(.keyUnsupported, detail: "private key is not P-256") }
        self.key = key
    }

    /// The private key as PKCS#8 PEM (`BEGIN PRIVATE KEY`), e.g. to write a test `.p8` file.
    package var pemRepresentation: String { key.pkcs8PEM() }

    /// The public half.
    package var publicKey: ECPublicKey {
        // The DER comes from our own P-256 key; failing to re-read it means OpenSSL is broken.
        do { return try ECPublicKey(derRepresentation: key.publicKeyDER) } catch {
            preconditionFailure("own P-256 public key does not parse: \(error)")
        }
    }

    /// Signs `message` with ECDSA over SHA-256(message).
    /// - Returns: the signature both as DER (App Attest assertions) and as raw `r ‖ s` (JWS ES256).
    /// - Throws: `crypto.internal` if OpenSSL fails to sign.
    package func signature(for message: [UInt8]) throws(CryptoError) -> ECDSASignature {
        let der = try key.signSHA256(message)
        return try ECDSASignature(derRepresentation: der)
    }
}

/// An ECDSA P-256 signature in both encodings.
package struct ECDSASignature: Sendable, Hashable {
    /// DER `Ecdsa-Sig-Value` (SEQUENCE of two INTEGERs).
    package let derRepresentation: [UInt8]
    /// Raw 64 bytes: `r ‖ s`, each big-endian and left-padded to 32 bytes (RFC 7518 3.4).
    package let rawRepresentation: [UInt8]

    /// Parses a DER signature (whole input consumed) and derives the raw form.
    /// - Throws: `crypto.der_malformed`.
    package init(derRepresentation der: [UInt8]) throws(CryptoError) {
        derRepresentation = der
        rawRepresentation = try Self.raw(fromDER: der)
    }

    /// Builds the DER form from raw 64-byte `r ‖ s`.
    /// - Throws: `crypto.der_malformed` for a wrong length.
    package init(rawRepresentation raw: [UInt8]) throws(CryptoError) {
        rawRepresentation = raw
        derRepresentation = try Self.der(fromRaw: raw)
    }
}
