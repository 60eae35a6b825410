internal import COpenSSL
internal import CShims
internal import Crypto

/// One OpenSSL `EVP_PKEY` owned for the length of a test-support operation (signing a certificate or a
/// PKCS#7 structure). The product's `PrivateKey` keeps its key to itself; it is re-read here from its PEM.
final class OwnedKey {
    let pointer: OpaquePointer

    init(unsafeTakingOwnership pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    /// Reads a private key from PKCS#8 PEM.
    convenience init(pem: String) throws(CryptoError) {
        var der = try PEM.decode(pem, labels: ["PRIVATE KEY"])
        defer { der.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        ERR_clear_error()
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw OpenSSLErrorQueue.error(.internalFailure, "d2i_AutoPrivateKey") }
        self.init(unsafeTakingOwnership: key)
    }

    /// Reads a public key from DER SubjectPublicKeyInfo.
    convenience init(publicDER der: [UInt8]) throws(CryptoError) {
        ERR_clear_error()
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw OpenSSLErrorQueue.error(.internalFailure, "d2i_PUBKEY") }
        self.init(unsafeTakingOwnership: key)
    }

    /// A fresh key from OpenSSL's CSPRNG: `group` is `P-256`/`P-384` for EC, nil with `rsaBits` for RSA.
    static func generate(group: String?, rsaBits: Int32 = 2048) throws(CryptoError) -> OwnedKey {
        ERR_clear_error()
        guard let context = EVP_PKEY_CTX_new_from_name(nil, group == nil ? "RSA" : "EC", nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "keygen_init") }
        if let group {
            guard EVP_PKEY_CTX_set_group_name(context, group) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "group")
            }
        } else {
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, rsaBits) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "bits")
            }
        }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_generate")
        }
        return OwnedKey(unsafeTakingOwnership: key)
    }

    /// The private key as unencrypted PKCS#8 PEM.
    func pkcs8PEM() throws(CryptoError) -> String {
        guard let info = EVP_PKEY2PKCS8(pointer) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY2PKCS8")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PKCS8_PRIV_KEY_INFO(info, &out)
        guard length > 0, let out else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_PKCS8_PRIV_KEY_INFO") }
        var der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        OPENSSL_cleanse(out, Int(length))
        cshim_OPENSSL_free(out)
        defer { der.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return PEM.encode(der, label: "PRIVATE KEY")
    }
}

/// One OpenSSL `X509` read from a certificate's DER.
final class OwnedCertificate {
    let pointer: OpaquePointer

    init(_ certificate: Certificate) throws(CryptoError) {
        ERR_clear_error()
        let x509: OpaquePointer? = certificate.derRepresentation.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let x509 else { throw OpenSSLErrorQueue.error(.internalFailure, "d2i_X509") }
        pointer = x509
    }

    deinit { X509_free(pointer) }
}
