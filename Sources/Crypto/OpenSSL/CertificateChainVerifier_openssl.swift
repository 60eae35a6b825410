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

    /// One link: `issuer` issued `leaf` and signed it; the leaf has no extension OpenSSL cannot handle.
    func verifyIssued(leaf: Certificate, by issuer: Certificate) throws(CryptoError) {
        ERR_clear_error()
        defer { ERR_clear_error() }
        let flags = X509_get_extension_flags(leaf.owner.pointer)
        guard flags & UInt32(EXFLAG_INVALID | EXFLAG_CRITICAL) == 0 else {
            throw CryptoError(.chainUntrusted, detail: "leaf has malformed or unhandled critical extensions")
        }
        let issued = X509_check_issued(issuer.owner.pointer, leaf.owner.pointer)
        guard issued == X509_V_OK else {
            throw CryptoError(.chainUntrusted, detail: String(cString: X509_verify_cert_error_string(Int(issued))))
        }
        // get0: the key belongs to the issuer certificate.
        guard let key = X509_get0_pubkey(issuer.owner.pointer), X509_verify(leaf.owner.pointer, key) == 1 else {
            throw CryptoError(.chainUntrusted, detail: "leaf signature does not verify under the cached intermediate")
        }
    }
}
