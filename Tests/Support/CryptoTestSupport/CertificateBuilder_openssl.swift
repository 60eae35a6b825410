internal import COpenSSL
internal import CShims
internal import Crypto
internal import FoundationEssentials
internal import Glibc

extension CertificateBuilder {
    func build(
        subjectKey: OwnedKey,
        issuer: OwnedCertificate?,
        issuerKey: OwnedKey,
        sha384: Bool
    ) throws(CryptoError) -> Certificate {
        ERR_clear_error()
        guard let x509 = X509_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_new") }
        defer { X509_free(x509) }
        guard X509_set_version(x509, 2) == 1,
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serial) == 1,
            ASN1_TIME_set(X509_getm_notBefore(x509), time_t(notBefore.timeIntervalSince1970)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(x509), time_t(notAfter.timeIntervalSince1970)) != nil,
            X509_set_pubkey(x509, subjectKey.pointer) == 1  // takes its own reference
        else { throw OpenSSLErrorQueue.error(.internalFailure, "X509 fields") }

        guard let name = X509_NAME_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_NAME_new") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            let utf8 = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, utf8, Int32(utf8.count), -1, 0) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "name entry \(field)")
            }
        }
        // set1 semantics: the certificate copies the name.
        guard X509_set_subject_name(x509, name) == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "subject") }
        let issuerName = issuer.map { X509_get_subject_name($0.pointer) } ?? name
        guard X509_set_issuer_name(x509, issuerName) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "issuer")
        }

        for ext in extensions { try add(ext, to: x509) }

        guard X509_sign(x509, issuerKey.pointer, sha384 ? EVP_sha384() : EVP_sha256()) > 0 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "X509_sign")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        defer { cshim_OPENSSL_free(out) }
        guard length > 0, let out else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_X509") }
        let der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        withExtendedLifetime((subjectKey, issuer, issuerKey)) {}
        return try Certificate(derRepresentation: der)
    }

    private func add(_ ext: Extension, to x509: OpaquePointer) throws(CryptoError) {
        guard let object = OBJ_txt2obj(ext.oid, 1) else { throw OpenSSLErrorQueue.error(.internalFailure, "OID") }
        defer { ASN1_OBJECT_free(object) }
        guard let octets = ASN1_OCTET_STRING_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "octets") }
        defer { ASN1_OCTET_STRING_free(octets) }
        guard ASN1_OCTET_STRING_set(octets, ext.value, Int32(ext.value.count)) == 1,
            let created = X509_EXTENSION_create_by_OBJ(nil, object, ext.critical ? 1 : 0, octets)
        else { throw OpenSSLErrorQueue.error(.internalFailure, "extension \(ext.oid)") }
        defer { X509_EXTENSION_free(created) }
        // add_ext copies the extension.
        guard X509_add_ext(x509, created, -1) == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "add_ext") }
    }
}
