internal import AttestCore
package import Crypto
package import FoundationEssentials

/// An App Attest receipt: PKCS#7 SignedData from Apple whose content is a SET of
/// `SEQUENCE { INTEGER field, INTEGER version, OCTET STRING value }` attributes
/// ("Assessing fraud risk": fields 2 app id ... 21 expiration time).
package struct AppAttestReceipt: Sendable, Hashable {
    /// `ATTEST` (from an attestation) or `RECEIPT` (refreshed by Apple's fraud-risk endpoint).
    package enum Kind: String, Sendable {
        case attest = "ATTEST"
        case receipt = "RECEIPT"
    }

    /// The receipt exactly as received, for storage and refreshes.
    package let bytes: [UInt8]
    package let appId: String
    /// DER of the credential certificate of the attested key (field 3).
    package let attestedCertificateDER: [UInt8]
    package let clientHash: [UInt8]
    package let token: String
    package let kind: Kind
    /// `sandbox` for development; absent or `production` otherwise (field 7).
    package let environment: String?
    package let creationTime: Date
    /// Apple's fraud-risk metric (field 17), only on refreshed receipts.
    package let riskMetric: Int?
    /// Earliest refresh time (field 19), only on refreshed receipts.
    package let notBefore: Date?
    package let expirationTime: Date

    /// Verifies the PKCS#7 signature and the signer's chain to `root` at `now`, then reads the fields.
    /// - Throws: `receipt_malformed`, `receipt_signature_invalid`, `receipt_untrusted`, `receipt_expired`.
    /// - Parameter chainCache: remembers signer chains already verified (Apple's receipt signer is
    ///   long-lived); a cached chain still has every window checked at `now`.
    package init(
        verifying bytes: [UInt8],
        root: Certificate,
        at now: Date,
        chainCache: IntermediateCache? = nil
    ) throws(AppAttestError) {
        // Fast path, the usual case: the signer chain is one already verified (Apple's receipt signer is
        // long-lived). Read without OpenSSL's PKCS#7, certificate and key decoders; one P-256 verification
        // with the cached signer key. A cache hit means these exact certificates, in this order, passed the
        // full path below; a receipt that fails here goes through it for the verdict and its reason.
        if let chainCache, let envelope = SignedData.appAttestEnvelope(bytes),
            let verified = chainCache.receiptChain(IntermediateCache.key(envelope.chainDERs, root: root)),
            envelope.isSigned(by: verified.signerKey)
        {
            for certificate in verified.certificates + [root] where !certificate.isValid(at: now) {
                throw AppAttestError(.receiptExpired, detail: certificate.subject)
            }
            try self.init(bytes: bytes, content: envelope.content)
            return
        }
        let signed: SignedData
        do { signed = try SignedData(verifyingSignatureOf: bytes) } catch {
            throw AppAttestError(
                error.reason == .derMalformed ? .receiptMalformed : .receiptSignatureInvalid,
                detail: error.description
            )
        }
        // Apple's receipt signer is long-lived, so a verified signer chain is remembered by the hash of
        // its DER; every window is still checked at `now`.
        let chain = [signed.signer] + signed.otherCertificates
        let key = IntermediateCache.key(chain.map(\.derRepresentation), root: root)
        if chainCache?.receiptChain(key) != nil {
            for certificate in chain + [root] where !certificate.isValid(at: now) {
                throw AppAttestError(.receiptExpired, detail: certificate.subject)
            }
        } else {
            do { try signed.verifyChain(to: root, at: now) } catch {
                throw AppAttestError(
                    error.reason == .certificateExpired ? .receiptExpired : .receiptUntrusted,
                    detail: error.description
                )
            }
            if let signerKey = try? signed.signer.publicKey() {
                chainCache?.insert(key, receiptChain: VerifiedReceiptChain(certificates: chain, signerKey: signerKey))
            }
        }
        try self.init(bytes: bytes, content: signed.content)
    }

    /// Checks that the receipt belongs to this app and key and, for `ATTEST` receipts, this attestation.
    /// - Parameters:
    ///   - appIds: the App IDs we serve.
    ///   - publicKey: the attested key.
    ///   - clientDataHash: the attestation's clientDataHash (checked only on `ATTEST` receipts: the
    ///     client hash of refreshed receipts carries nothing useful).
    ///   - environment: development receipts say `sandbox`; production ones never do.
    ///   - credentialCertificateDER: the attestation's leaf, if at hand: the same DER means the same key
    ///     without parsing field 3 again.
    package func check(
        appIds: [AppID],
        publicKey: ECPublicKey,
        clientDataHash: [UInt8],
        environment: AppAttestEnvironment,
        credentialCertificateDER: [UInt8]? = nil
    ) -> AttestationCheckResult {
        guard appIds.contains(where: { $0.string == appId }) else { return .fail(.receiptAppIdMismatch) }
        guard (self.environment == "sandbox") == (environment == .development) else {
            return .fail(.receiptEnvironmentMismatch, detail: self.environment ?? "absent")
        }
        if credentialCertificateDER != attestedCertificateDER {
            let attested = try? Certificate(derRepresentation: attestedCertificateDER, keyDecoding: .deferred)
                .publicKey()
            guard attested?.x962Representation == publicKey.x962Representation else {
                return .fail(.receiptKeyMismatch)
            }
        }
        if kind == .attest && !ConstantTime.equal(clientHash, clientDataHash) {
            return .fail(.receiptClientHashMismatch)
        }
        return .pass
    }
}
