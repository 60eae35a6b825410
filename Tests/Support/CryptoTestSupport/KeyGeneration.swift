package import Crypto

// Key generation lives here, not in `Crypto`: the product only imports keys (the DeviceCheck `.p8`, the
// service account's RSA key) and never makes one.

extension PrivateKey {
    /// Generates a new EC key of `kind` from OpenSSL's CSPRNG (tests, the simulated device, benches).
    /// - Throws: `crypto.internal` if OpenSSL cannot generate it.
    package init(generating kind: Kind) throws(CryptoError) {
        let key = try OwnedKey.generate(group: kind == .p384 ? "P-384" : "P-256")
        try self.init(pemRepresentation: try key.pkcs8PEM())
    }
}

extension P256PrivateKey {
    /// Generates a new random P-256 key.
    /// - Throws: `crypto.internal` if OpenSSL cannot generate it.
    package init() throws(CryptoError) {
        try self.init(PrivateKey(generating: .p256))
    }
}

/// A fresh RSA key and its PKCS#8 PEM: a throw-away service account for tests and the fake Google.
package struct GeneratedRSAKey: Sendable {
    /// The key as the product loads it.
    package let key: RSAPrivateKey
    /// `BEGIN PRIVATE KEY` PEM, as a service-account JSON key carries it.
    package let pkcs8PEM: String
    /// The public half as DER SubjectPublicKeyInfo (to put into a certificate).
    package var publicKeyDER: [UInt8] { key.publicKeyDER }

    /// - Throws: `crypto.internal` if OpenSSL cannot generate it or the product refuses what it made.
    package init(bits: Int = 2048) throws(CryptoError) {
        pkcs8PEM = try OwnedKey.generate(group: nil, rsaBits: Int32(bits)).pkcs8PEM()
        do {
            key = try RSAPrivateKey(pem: Array(pkcs8PEM.utf8))
        } catch {
            throw CryptoError(.internalFailure, detail: "generated RSA key refused: \(error)")
        }
    }
}
