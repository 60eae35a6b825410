package import Crypto
internal import CryptoTestSupport

/// One App Attest key inside the simulated Secure Enclave: its P-256 private key, its key id and the
/// counter the enclave bumps on every assertion.
package struct SimulatedAppAttestKey: Sendable {
    package let privateKey: P256PrivateKey
    /// SHA-256 of the X9.62 uncompressed point, as `DCAppAttestService.generateKey` returns it.
    package let keyId: [UInt8]
    /// The last counter used; the next assertion carries `counter + 1`.
    package private(set) var counter: UInt32 = 0

    /// Generates a fresh key (as `DCAppAttestService.generateKey()` does).
    /// - Throws: `CryptoError` if OpenSSL fails.
    package init() throws(CryptoError) {
        privateKey = try P256PrivateKey()
        keyId = Digest.sha256(privateKey.publicKey.x962Representation)
    }

    /// The public key the server stores after attestation.
    package var publicKey: ECPublicKey { privateKey.publicKey }

    mutating func nextCounter() -> UInt32 {
        counter += 1
        return counter
    }
}
