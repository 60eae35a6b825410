internal import COpenSSL
internal import CShims
internal import FoundationEssentials

extension CertificateChainVerifier {
    /// Builds an X509_STORE holding only `anchor`, verifies at `now`, returns the built chain's length.
    func buildAndVerify(
        leaf: Certificate,
        untrusted: [Certificate],
        anchor: Certificate,
        partial: Bool,
        at now: Date
    ) throws(CryptoError) -> Int {
        ERR_clear_error()
        // OpenSSL verifies the leaf's signature in the leaf's own library context, which for a certificate
        // parsed without its key has no algorithms at all.
        guard ([leaf, anchor] + untrusted).allSatisfy(\.keyDecoded) else {
            throw CryptoError(.internalFailure, detail: "a full chain build needs certificates parsed with their keys")
        }
        guard let store = X509_STORE_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_STORE_new") }
        defer { X509_STORE_free(store) }
        // add_cert takes its own reference (set1 semantics); `anchor` keeps ours.
        guard X509_STORE_add_cert(store, anchor.owner.pointer) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "X509_STORE_add_cert")
        }
        guard let stack = cshim_sk_X509_new_null() else { throw OpenSSLErrorQueue.error(.internalFailure, "sk_X509") }
        defer { cshim_sk_X509_pop_free(stack) }
        for certificate in untrusted {
            X509_up_ref(certificate.owner.pointer)  // the stack's pop_free releases this reference
            guard cshim_sk_X509_push(stack, certificate.owner.pointer) > 0 else {
                X509_free(certificate.owner.pointer)
                throw OpenSSLErrorQueue.error(.internalFailure, "sk_X509_push")
            }
        }
        guard let context = X509_STORE_CTX_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "CTX_new") }
        defer { X509_STORE_CTX_free(context) }
        return try withExtendedLifetime((leaf, anchor, untrusted)) { () throws(CryptoError) -> Int in
            guard X509_STORE_CTX_init(context, store, leaf.owner.pointer, stack) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "X509_STORE_CTX_init")
            }
            // get0: the parameters belong to the context.
            let parameters = X509_STORE_CTX_get0_param(context)
            X509_VERIFY_PARAM_set_time(parameters, time_t(now.timeIntervalSince1970.rounded(.down)))
            if partial { X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
            guard X509_verify_cert(context) == 1 else {
                let code = X509_STORE_CTX_get_error(context)
                let text = String(cString: X509_verify_cert_error_string(Int(code)))
                _ = OpenSSLErrorQueue.drain()
                switch code {
                case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID:
                    throw CryptoError(.certificateExpired, detail: text)
                default:
                    throw CryptoError(
                        .chainUntrusted,
                        detail: "\(text) at depth \(X509_STORE_CTX_get_error_depth(context))"
                    )
                }
            }
            // get0: the chain belongs to the context.
            return Int(cshim_sk_X509_num(X509_STORE_CTX_get0_chain(context)))
        }
    }

    /// One link: `issuer` issued `leaf` and signed it, and the leaf has no extension OpenSSL cannot handle.
    ///
    /// What `X509_verify_cert` checks of a leaf under an already trusted issuer: the issuer relation
    /// (`X509_check_issued`: names, key identifiers, the issuer's keyCertSign, key type against the
    /// signature algorithm), no malformed, unhandled critical or proxy extension and no malformed
    /// policies, and the signature. The signature is verified here rather than by `X509_verify`, in the
    /// default library context, so that it also works for a leaf parsed without its key
    /// (`KeyDecoding.deferred`): the same checks as `X509_verify` (equal inner and outer algorithms, ECDSA
    /// with SHA-256/384, no unused bits) over the exact `tbsCertificate` bytes received (so a leaf that is
    /// BER rather than DER, which the full build would take, is refused here).
    ///
    /// Not done here, and why that is safe: name constraints, policy constraints and RFC 3779 resources
    /// come from the issuer, and an issuer carrying any of them is never used here
    /// (`canAnchorOneLinkChecks`); a leaf carrying RFC 3779 resources is refused.
    func verifyIssued(leaf: Certificate, by issuer: Certificate) throws(CryptoError) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        let flags = X509_get_extension_flags(leaf.owner.pointer)
        guard flags & UInt32(EXFLAG_INVALID | EXFLAG_CRITICAL | EXFLAG_PROXY | EXFLAG_INVALID_POLICY) == 0 else {
            throw CryptoError(
                .chainUntrusted,
                detail: "leaf has malformed, unhandled critical or proxy extensions, or malformed policies"
            )
        }
        guard Self.resourceExtensions.allSatisfy({ X509_get_ext_by_NID(leaf.owner.pointer, $0, -1) < 0 }) else {
            throw CryptoError(.chainUntrusted, detail: "leaf carries RFC 3779 resources")
        }
        guard Self.canAnchorOneLinkChecks(issuer) else {
            throw CryptoError(.chainUntrusted, detail: "issuer constrains its subordinates: full chain build only")
        }
        let issued = X509_check_issued(issuer.owner.pointer, leaf.owner.pointer)
        guard issued == X509_V_OK else {
            throw CryptoError(.chainUntrusted, detail: String(cString: X509_verify_cert_error_string(Int(issued))))
        }
        // get0: the key belongs to the issuer certificate.
        guard let key = X509_get0_pubkey(issuer.owner.pointer), verifySignature(of: leaf, with: key) else {
            throw CryptoError(.chainUntrusted, detail: "leaf signature does not verify under the cached intermediate")
        }
    }

    /// RFC 3779 IP address and AS number resources, which only the full chain build checks.
    private static let resourceExtensions = [NID_sbgp_ipAddrBlock, NID_sbgp_autonomousSysNum]

    /// Whether `issuer` constrains nothing that only OpenSSL's full chain build checks of a subordinate:
    /// no name constraints, policy constraints, inhibitAnyPolicy or RFC 3779 resources.
    static func canAnchorOneLinkChecks(_ issuer: Certificate) -> Bool {
        defer { ERR_clear_error() }
        let constraining = [NID_name_constraints, NID_policy_constraints, NID_inhibit_any_policy] + resourceExtensions
        return constraining.allSatisfy { X509_get_ext_by_NID(issuer.owner.pointer, $0, -1) < 0 }
    }

    private func verifySignature(of certificate: Certificate, with key: OpaquePointer) -> Bool {
        // get0 throughout: the algorithms and signature are borrowed from the certificate.
        var outerAlgorithm: UnsafePointer<X509_ALGOR>? = nil
        var signature: UnsafePointer<ASN1_BIT_STRING>? = nil
        X509_get0_signature(&signature, &outerAlgorithm, certificate.owner.pointer)
        guard let signature, let outerAlgorithm,
            X509_ALGOR_cmp(outerAlgorithm, X509_get0_tbs_sigalg(certificate.owner.pointer)) == 0,
            signature.pointee.flags & 0x07 == 0,  // ASN1_STRING_FLAG_BITS_LEFT: unused bits
            let signatureBytes = signature.pointee.data, signature.pointee.length > 0
        else { return false }
        var digestNID: Int32 = 0
        var keyNID: Int32 = 0
        guard OBJ_find_sigid_algs(X509_get_signature_nid(certificate.owner.pointer), &digestNID, &keyNID) == 1,
            keyNID == NID_X9_62_id_ecPublicKey, EVP_PKEY_is_a(key, "EC") == 1
        else { return false }
        let digest: String
        switch digestNID {
        case NID_sha256: digest = "SHA256"
        case NID_sha384: digest = "SHA384"
        default: return false
        }
        // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }
        var outer = DERReader(certificate.derRepresentation[...], allowLongForm: true)
        guard let body = outer.next(tag: 0x30), outer.isAtEnd else { return false }
        var sections = DERReader(body, allowLongForm: true)
        guard let tbs = sections.next(), tbs.tag == 0x30 else { return false }
        let tbsBytes = Array(tbs.encoded)
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // The default library context (nil) supplies the digest and ECDSA, whatever the leaf was parsed in.
        guard EVP_DigestVerifyInit_ex(context, nil, digest, nil, nil, key, nil) == 1 else { return false }
        return tbsBytes.withUnsafeBufferPointer { tbsBuffer in
            EVP_DigestVerify(
                context,
                signatureBytes,
                Int(signature.pointee.length),
                tbsBuffer.baseAddress,
                tbsBuffer.count
            ) == 1
        }
    }
}
