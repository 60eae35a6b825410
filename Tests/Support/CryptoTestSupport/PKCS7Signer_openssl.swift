internal import COpenSSL
internal import CShims
internal import Crypto

enum PKCS7Signer {
    static func sign(
        _ content: [UInt8],
        signer: Certificate,
        key: PrivateKey,
        extraCertificates: [Certificate],
        signedAttributes: Bool = false
    ) throws(CryptoError) -> [UInt8] {
        let signerX509 = try OwnedCertificate(signer)
        let signingKey = try OwnedKey(pem: key.pemRepresentation)
        let extras = try extraCertificates.map { (certificate) throws(CryptoError) in try OwnedCertificate(certificate)
        }
        ERR_clear_error()
        guard let stack = cshim_sk_X509_new_null() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "sk_X509_new_null")
        }
        defer { cshim_sk_X509_pop_free(stack) }
        for certificate in extras {
            X509_up_ref(certificate.pointer)  // released by pop_free
            _ = cshim_sk_X509_push(stack, certificate.pointer)
        }
        let flags = Int32(signedAttributes ? PKCS7_BINARY | PKCS7_NOSMIMECAP : PKCS7_BINARY | PKCS7_NOATTR)
        // The memory BIO reads `content` in place, so it lives and dies inside the buffer's scope.
        let p7: UnsafeMutablePointer<PKCS7>? = content.withUnsafeBufferPointer { buffer in
            guard let input = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(input) }
            return PKCS7_sign(signerX509.pointer, signingKey.pointer, stack, input, flags)
        }
        guard let p7 else { throw OpenSSLErrorQueue.error(.internalFailure, "PKCS7_sign") }
        defer { PKCS7_free(p7) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PKCS7(p7, &out)
        defer { cshim_OPENSSL_free(out) }
        guard length > 0, let out else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_PKCS7") }
        return withExtendedLifetime((signerX509, signingKey, extras)) {
            Array(UnsafeBufferPointer(start: out, count: Int(length)))
        }
    }
}
