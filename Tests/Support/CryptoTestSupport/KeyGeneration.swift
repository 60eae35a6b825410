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

    /// One key for the whole test process, made on first use: most callers need *a* service account or
    /// *an* RSA leaf, not a new one, and 2048-bit generation costs up to two seconds of CPU on a loaded
    /// 2-core machine, which parallel suites would otherwise pay once per test, starving the pool.
    /// - Throws: `crypto.internal` if OpenSSL cannot generate it.
    package static func shared() throws(CryptoError) -> GeneratedRSAKey { try sharedKey.get() }

    private static let sharedKey = Result { () throws(CryptoError) -> GeneratedRSAKey in try GeneratedRSAKey() }

    /// A fresh key (where a test needs one of its own: a stranger's account, the generator's own test).
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
