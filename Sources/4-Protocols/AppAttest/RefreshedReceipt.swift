internal import AttestCore
package import Crypto
package import FoundationEssentials

/// A `RECEIPT`-type receipt from Apple's receipt exchange (`/v1/attestationData`, "Assessing fraud
/// risk"), verified: it carries the fraud-risk metric (field 17), the earliest time to ask again
/// (field 19, not-before) and its expiry (field 21).
package struct RefreshedReceipt: Sendable, Hashable {
    package let receipt: AppAttestReceipt
    /// Approximately how many keys this device attested for the app in the last 30 days.
    package let riskMetric: Int
    /// Before this, Apple answers a new exchange with `304` (keep this receipt).
    package let notBefore: Date
    package let expirationTime: Date
}

extension AppAttestVerifier {
    /// Verifies a receipt the exchange returned for the key whose public key is `publicKey`: PKCS#7
    /// signature and signer chain to Apple Root CA - G3 (the trust's receipt root) at `now`; type
    /// `RECEIPT`; our app id and environment; field 3 names this key; a risk metric (a non-negative ASCII
    /// integer), a not-before and an expiry after `now`. Field 4 (client hash) is not checked: on
    /// refreshed receipts it hashes nothing useful.
    /// - Parameter credentialCertificateDER: the stored credential certificate, if at hand (the same DER
    ///   in field 3 proves the same key without parsing it).
    /// - Throws: `AppAttestError`: `receipt_malformed` (not a receipt, or metric / not-before missing
    ///   or unreadable), `receipt_signature_invalid`, `receipt_untrusted`, `receipt_expired`,
    ///   `receipt_type_unexpected` (an `ATTEST` receipt), `receipt_app_id_mismatch`,
    ///   `receipt_environment_mismatch`, `receipt_key_mismatch`.
    package func verifyRefreshedReceipt(
        _ bytes: [UInt8],
        publicKey: ECPublicKey,
        credentialCertificateDER: [UInt8]? = nil,
        now: Date
    ) throws(AppAttestError) -> RefreshedReceipt {
        guard !bytes.isEmpty, bytes.count <= RefreshedReceipt.maxBytes else {
            throw AppAttestError(.receiptMalformed, detail: "\(bytes.count) bytes")
        }
        let receipt = try AppAttestReceipt(verifying: bytes, root: trust.receiptRoot, at: now, chainCache: receiptCache)
        guard receipt.kind == .receipt else { throw AppAttestError(.receiptTypeUnexpected, detail: "ATTEST") }
        if case .fail(let reason, let detail) = receipt.check(
            appIds: appIds,
            publicKey: publicKey,
            clientDataHash: [],
            environment: environment,
            credentialCertificateDER: credentialCertificateDER
        ) {
            throw AppAttestError(reason, detail: detail)
        }
        guard let metric = receipt.riskMetric, metric >= 0 else {
            throw AppAttestError(.receiptMalformed, detail: "risk metric missing or unreadable")
        }
        guard let notBefore = receipt.notBefore else {
            throw AppAttestError(.receiptMalformed, detail: "not-before missing")
        }
        guard receipt.expirationTime > now else { throw AppAttestError(.receiptExpired, detail: "field 21") }
        return RefreshedReceipt(
            receipt: receipt,
            riskMetric: metric,
            notBefore: notBefore,
            expirationTime: receipt.expirationTime
        )
    }
}

extension RefreshedReceipt {
    /// Real receipts are about 5 KB; anything far larger is refused before parsing.
    package static let maxBytes = 32 * 1024
}
