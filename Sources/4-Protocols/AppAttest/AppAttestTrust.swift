package import Crypto

/// The roots App Attest evidence must chain to: Apple's App Attestation root for attestation
/// certificates and Apple Root CA - G3 for receipts, both pinned in the repository.
///
/// Outside production a synthetic root (the simulated device's, via `APP_ATTEST_TRUST_ROOT`) replaces
/// both; the configuration refuses that in production.
package struct AppAttestTrust: Sendable {
    package let attestationRoot: Certificate
    package let receiptRoot: Certificate

    package init(attestationRoot: Certificate, receiptRoot: Certificate) {
        self.attestationRoot = attestationRoot
        self.receiptRoot = receiptRoot
    }

    /// Apple's pinned roots.
    package static let apple: AppAttestTrust = {
        do {
            return AppAttestTrust(
                attestationRoot: try Certificate(pemRepresentation: AppleRoots.appAttestationRootPEM),
                receiptRoot: try Certificate(pemRepresentation: AppleRoots.rootG3PEM)
            )
        } catch {
            preconditionFailure("pinned Apple root does not parse: \(error)")
        }
    }()

    /// The trust for `APP_ATTEST_TRUST_ROOT`: the PEM file's certificate replaces both Apple roots.
    /// Callers refuse this in production (docs/api.md §5) before getting here.
    /// - Throws: `appattest.input_invalid` when the text holds no parseable certificate.
    package static func overridden(rootPEM: String) throws(AppAttestError) -> AppAttestTrust {
        do { return synthetic(root: try Certificate(pemRepresentation: rootPEM)) } catch {
            throw AppAttestError(.inputInvalid, detail: "APP_ATTEST_TRUST_ROOT: \(error.description)")
        }
    }

    /// One synthetic root for both attestation chains and receipts (tests, local runs).
    package static func synthetic(root: Certificate) -> AppAttestTrust {
        AppAttestTrust(attestationRoot: root, receiptRoot: root)
    }
}
