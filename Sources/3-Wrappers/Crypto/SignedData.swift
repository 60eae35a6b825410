package import FoundationEssentials

/// A PKCS#7 / CMS `SignedData` (BER accepted, as Apple's App Attest receipts use indefinite lengths).
package struct SignedData: Sendable {
    /// The encapsulated content, after the signature has been verified.
    package let content: [UInt8]
    /// The certificate whose key made the one signature.
    package let signer: Certificate
    /// Every other certificate carried in the structure.
    package let otherCertificates: [Certificate]

    /// Parses `ber` (whole input consumed) and verifies its single signature over the embedded
    /// content. The signer's chain is not checked here: call `verifyChain(to:at:)`.
    /// - Throws: `crypto.der_malformed` or `crypto.signed_data_invalid`.
    package init(verifyingSignatureOf ber: [UInt8]) throws(CryptoError) {
        self = try Self.parseAndVerify(ber)
    }

    init(content: [UInt8], signer: Certificate, otherCertificates: [Certificate]) {
        self.content = content
        self.signer = signer
        self.otherCertificates = otherCertificates
    }

    /// Verifies that the signer chains to `root` through the carried certificates, valid at `now`.
    /// - Throws: `crypto.cert_expired` or `crypto.chain_untrusted`.
    package func verifyChain(to root: Certificate, at now: Date) throws(CryptoError) {
        try CertificateChainVerifier(root: root).verify(
            leaf: signer,
            intermediates: otherCertificates,
            at: now,
            requireEveryIntermediate: false
        )
    }
}
