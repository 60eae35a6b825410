package import FoundationEssentials

/// What a simulated attestation contains. The defaults give a genuine attestation; each knob breaks
/// exactly one thing so that negative tests can show each check refusing on its own.
package struct AttestationOptions: Sendable {
    /// Leaf validity relative to the attestation time (Apple: about three days).
    package var leafValidity: ClosedRange<TimeInterval> = -3_600...(3 * 86_400)
    /// Counter in authenticator data (genuine: 0).
    package var counter: UInt32 = 0
    /// Overrides the aaguid of the device's environment.
    package var aaguid: [UInt8]? = nil
    /// Overrides the credential id (genuine: the key id).
    package var credentialId: [UInt8]? = nil
    /// Overrides the App ID whose hash goes into rpIdHash (`TEAMID.bundle.id`).
    package var appId: String? = nil
    /// Leaves the nonce extension out of the leaf.
    package var omitNonceExtension = false
    /// Replaces the nonce extension's DER (e.g. with a long-form length).
    package var nonceExtensionValue: [UInt8]? = nil
    /// Adds a critical extension nobody knows (OID 1.3.6.1.4.1.55555.1) to the leaf.
    package var unknownCriticalExtension = false
    /// Issues the leaf for an RSA key instead of the attested P-256 key.
    package var rsaLeafKey = false
    /// What x5c holds (genuine: leaf + intermediate).
    package var chain: Chain = .leafAndIntermediate
    /// Newer format: EKU 1.2.840.113635.100.4.24 on the leaf and a trailing extensions map in authData.
    package var newerFormat = false
    /// Leaves the receipt out of the statement.
    package var omitReceipt = false
    /// What the ATTEST receipt says (genuine: the defaults), one knob per receipt check.
    package var receipt = ReceiptOptions()

    package struct ReceiptOptions: Sendable {
        /// Overrides field 2, the App ID.
        package var appId: String? = nil
        /// Puts another key's certificate in field 3.
        package var otherKeyCertificate = false
        /// Overrides field 4, the client data hash.
        package var clientDataHash: [UInt8]? = nil
        /// Overrides field 6 (genuine: `ATTEST`).
        package var kind: String? = nil
        /// Overrides field 7 (genuine: `sandbox` for development devices, `production` otherwise).
        package var environment: String? = nil
        /// Changes one content byte after signing, so the PKCS#7 signature no longer matches.
        package var tamperAfterSigning = false
        /// Carries signed attributes but signs the content itself instead of them (as some early iOS 14
        /// receipts do): a correct-looking signature that PKCS#7 verification refuses.
        package var signatureOverContent = false
        /// Signs with this authority's receipt signer instead of the device's (a chain to another root).
        package var signer: SimulatedAppleCA? = nil
    }

    package enum Chain: Sendable {
        case leafAndIntermediate
        case leafOnly
        case leafIntermediateAndRoot
    }

    package init() {}

    /// A genuine attestation.
    package static let genuine = AttestationOptions()

    /// A copy with one change, for one-line negative tests: `.genuine.with { $0.counter = 1 }`.
    package func with(_ change: (inout AttestationOptions) -> Void) -> AttestationOptions {
        var copy = self
        change(&copy)
        return copy
    }
}
