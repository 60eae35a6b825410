package import FoundationEssentials

/// Verifies certificate chains up to exactly one pinned root, at an injected time.
///
/// No system trust store is consulted: the OpenSSL store holds only `root`. Every link's validity is
/// checked at `now`, the root included, both by OpenSSL and by an explicit window check.
package struct CertificateChainVerifier: Sendable {
    /// The only trust anchor.
    package let root: Certificate

    package init(root: Certificate) { self.root = root }

    /// Verifies that `leaf` chains through `intermediates` to the pinned root, valid at `now`.
    /// - Parameters:
    ///   - leaf: the end-entity certificate.
    ///   - intermediates: candidate issuers; copies of the root among them are ignored.
    ///   - now: the verification time.
    ///   - requireEveryIntermediate: when true the built chain must use every intermediate given
    ///     (App Attest's x5c is exactly leaf + one intermediate).
    /// - Throws: `crypto.cert_expired` when a link is outside its validity window,
    ///   `crypto.chain_untrusted` for anything else (wrong issuer, bad signature, not a CA).
    package func verify(
        leaf: Certificate,
        intermediates: [Certificate],
        at now: Date,
        requireEveryIntermediate: Bool = true
    ) throws(CryptoError) {
        let candidates = intermediates.filter { $0 != root }
        for certificate in [leaf] + candidates + [root] where !certificate.isValid(at: now) {
            throw CryptoError(.certificateExpired, detail: "\(certificate.subject) outside its validity at \(now)")
        }
        let length = try buildAndVerify(leaf: leaf, untrusted: candidates, anchor: root, partial: false, at: now)
        if requireEveryIntermediate && length != candidates.count + 2 {
            throw CryptoError(.chainUntrusted, detail: "chain of \(length) certificates uses not every intermediate")
        }
    }

    /// Verifies `leaf` against an intermediate that an earlier full `verify` already accepted.
    ///
    /// The checks `X509_verify_cert` makes of a leaf whose issuer is already trusted, without building a
    /// store: the issuer relation (names, key identifiers, keyCertSign), no malformed or unhandled critical
    /// extension on the leaf, and one signature verification; the leaf, intermediate and root windows
    /// at `now`. Issuers with name or policy constraints or RFC 3779 resources, which only the full build
    /// checks, are refused (see `isOneLinkAnchor`). The leaf may be parsed without its key
    /// (`Certificate.KeyDecoding.deferred`). Never pass an unverified intermediate here: it is used as a
    /// trust anchor.
    /// - Throws: as `verify`.
    package func verify(leaf: Certificate, verifiedIntermediate: Certificate, at now: Date) throws(CryptoError) {
        for certificate in [leaf, verifiedIntermediate, root] where !certificate.isValid(at: now) {
            throw CryptoError(.certificateExpired, detail: "\(certificate.subject) outside its validity at \(now)")
        }
        try verifyIssued(leaf: leaf, by: verifiedIntermediate)
    }

    /// Whether `certificate` may anchor `verify(leaf:verifiedIntermediate:at:)` once verified: it carries
    /// no name constraints, policy constraints, inhibitAnyPolicy or RFC 3779 resources. Cache only these.
    package static func isOneLinkAnchor(_ certificate: Certificate) -> Bool { canAnchorOneLinkChecks(certificate) }
}
