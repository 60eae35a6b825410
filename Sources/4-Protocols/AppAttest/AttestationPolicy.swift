package import AttestCore
internal import Crypto
internal import FoundationEssentials

/// What one App Attest check concludes: the verifiers' one `PolicyResult` shape (AttestCore).
package typealias AttestationCheckResult = PolicyResult<AppAttestError.Reason>

/// One of Apple's attestation validation steps, evaluated over parsed evidence.
protocol AttestationPolicy: Sendable {
    func evaluate(_ evidence: AttestationEvidence) -> AttestationCheckResult
}

/// Everything the attestation checks read, parsed once up front.
struct AttestationEvidence {
    let keyId: [UInt8]
    let clientDataHash: [UInt8]
    let object: AttestationObject
    let leaf: Certificate
    let intermediate: Certificate
    /// Whether `intermediate` came out of the cache of verified intermediates.
    let intermediateVerified: Bool
    /// The cache key of the intermediate under the pinned root.
    let intermediateKey: [UInt8]
    /// The leaf's key when it is ECDSA on an accepted curve, nil otherwise (the chain policy refuses that).
    let leafKey: ECPublicKey?
    /// Whether the intermediate's key is P-384: checked when it is first verified, and only such
    /// intermediates are cached.
    let intermediateIsP384: Bool
    let now: Date

    var authenticatorData: AuthenticatorData { object.authenticatorData }

    /// Types the certificates of `object`: exactly leaf + intermediate, each DER parsed in full.
    ///
    /// Under a cached intermediate the leaf is parsed without OpenSSL decoding its key
    /// (`KeyDecoding.deferred`): it is only ever a subject there, and its key is built from the SPKI
    /// fields. A first-seen intermediate goes through OpenSSL's full chain build, which needs both
    /// certificates parsed with their keys.
    /// - Throws: `chain_length` or `cert_malformed`.
    init(
        keyId: [UInt8],
        clientDataHash: [UInt8],
        object: AttestationObject,
        now: Date,
        root: Certificate,
        cache: IntermediateCache
    ) throws(AppAttestError) {
        guard object.certificates.count == 2 else {
            throw AppAttestError(
                .chainLength,
                detail: "x5c holds \(object.certificates.count) certificates, expected 2"
            )
        }
        intermediateKey = IntermediateCache.key([object.certificates[1]], root: root)
        let cached = cache.certificate(intermediateKey)
        do {
            leaf = try Certificate(
                derRepresentation: object.certificates[0],
                keyDecoding: cached == nil ? .eager : .deferred
            )
            if let cached {
                intermediate = cached
            } else {
                intermediate = try Certificate(derRepresentation: object.certificates[1])
            }
        } catch { throw AppAttestError(.certMalformed, detail: error.description) }
        intermediateVerified = cached != nil
        leafKey = try? leaf.publicKey()
        intermediateIsP384 = cached != nil || (try? intermediate.publicKey())?.curve == .p384
        self.keyId = keyId
        self.clientDataHash = clientDataHash
        self.object = object
        self.now = now
    }
}
