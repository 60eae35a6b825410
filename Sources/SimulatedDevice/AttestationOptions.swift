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
    /// Issues the leaf for an RSA key instead of the attested P-256 key.
    package var rsaLeafKey = false
    /// What x5c holds (genuine: leaf + intermediate).
    package var chain: Chain = .leafAndIntermediate
    /// Newer format: EKU 1.2.840.113635.100.4.24 on the leaf and a trailing extensions map in authData.
    package var newerFormat = false
    /// Leaves the receipt out of the statement.
    package var omitReceipt = false

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
