package import Crypto

/// A key that passed Apple's attestation steps: what the key registration stores.
package struct AttestedKey: Sendable, Hashable {
    /// SHA-256 of the X9.62 point (32 bytes).
    package let keyId: [UInt8]
    /// The credential's P-256 key (DER SPKI and X9.62 forms).
    package let publicKey: ECPublicKey
    package let environment: AppAttestEnvironment
    /// The App ID whose rpIdHash matched.
    package let appId: AppID
    /// The receipt from the attestation statement, exactly as received and not yet checked: Apple's nine
    /// steps do not cover it. `AppAttestVerifier.verifyReceipt` checks it; key registration runs both
    /// through `verifyRegistration` and stores `VerifiedRegistration.receipt.bytes`, never these.
    package let unverifiedReceipt: [UInt8]
    /// DER of the credential certificate (the x5c leaf), which an ATTEST receipt repeats in field 3.
    package let credentialCertificateDER: [UInt8]
    /// Always 0 for a fresh attestation; assertions must exceed the stored value.
    package let counter: UInt32
}

/// A registration's evidence, both parts verified: the attested key and its ATTEST receipt.
package struct VerifiedRegistration: Sendable, Hashable {
    package let key: AttestedKey
    package let receipt: AppAttestReceipt
}
