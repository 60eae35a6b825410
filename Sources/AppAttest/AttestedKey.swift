package import Crypto

/// A key that passed attestation: what the key registration stores.
package struct AttestedKey: Sendable, Hashable {
    /// SHA-256 of the X9.62 point (32 bytes).
    package let keyId: [UInt8]
    /// The credential's P-256 key (DER SPKI and X9.62 forms).
    package let publicKey: ECPublicKey
    package let environment: AppAttestEnvironment
    /// The App ID whose rpIdHash matched.
    package let appId: AppID
    /// The ATTEST receipt from the statement, verified; store it to ask Apple for risk metrics later.
    package let receipt: AppAttestReceipt
    /// Always 0 for a fresh attestation; assertions must exceed the stored value.
    package let counter: UInt32
}
