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
    /// through `verifyRegistration` and stores these bytes with whether our check passed.
    package let unverifiedReceipt: [UInt8]
    /// DER of the credential certificate (the x5c leaf), which an ATTEST receipt repeats in field 3.
    package let credentialCertificateDER: [UInt8]
    /// Always 0 for a fresh attestation; assertions must exceed the stored value.
    package let counter: UInt32
}

/// A registration's evidence: the key that passed Apple's nine steps (what decides the registration) and
/// what our own check of its ATTEST receipt found (docs/appattest.md, "A receipt our check refuses").
package struct VerifiedRegistration: Sendable, Hashable {
    package let key: AttestedKey
    /// The verified ATTEST receipt; nil when our check refused it (`receiptRefusal` says why).
    package let receipt: AppAttestReceipt?
    /// Why our check refused the receipt; nil when it passed.
    package let receiptRefusal: AppAttestError?

    package init(key: AttestedKey, receipt: AppAttestReceipt) {
        self.key = key
        self.receipt = receipt
        self.receiptRefusal = nil
    }

    package init(key: AttestedKey, receiptRefusal: AppAttestError) {
        self.key = key
        self.receipt = nil
        self.receiptRefusal = receiptRefusal
    }

    /// The receipt as received (verified or not): what the key row stores and Apple's exchange takes.
    package var receiptBytes: [UInt8] { key.unverifiedReceipt }
    /// Whether our check passed.
    package var receiptVerified: Bool { receipt != nil }
}
