internal import COpenSSL
internal import CShims

extension SignedData {
    /// Largest structure we parse; Apple's receipts are about 4 KB.
    static let maxBytes = 64 * 1024

    static func parseAndVerify(_ ber: [UInt8]) throws(CryptoError) -> SignedData {
        ERR_clear_error()
        guard !ber.isEmpty, ber.count <= maxBytes else { throw CryptoError(.derMalformed, detail: "size \(ber.count)") }
        let parsed: (UnsafeMutablePointer<PKCS7>?, Int) = ber.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let p7 = d2i_PKCS7(nil, &cursor, buffer.count)
            return (p7, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let p7 = parsed.0 else { throw OpenSSLErrorQueue.error(.derMalformed, "d2i_PKCS7") }
        defer { PKCS7_free(p7) }
        guard parsed.1 == ber.count else { throw CryptoError(.derMalformed, detail: "trailing bytes after PKCS#7") }
        guard let carried = cshim_PKCS7_signed_certs(p7) else {
            throw CryptoError(.signedDataInvalid, detail: "not signed data, or no certificates")
        }
        guard let output = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.error(.internalFailure, "BIO_new") }
        defer { BIO_free(output) }
        // NOVERIFY: signature and content digest only; the chain is verified separately at an injected time.
        guard PKCS7_verify(p7, nil, nil, nil, output, Int32(PKCS7_NOVERIFY)) == 1 else {
            throw OpenSSLErrorQueue.error(.signedDataInvalid, "PKCS7_verify")
        }
        // Returns a new stack of borrowed certificates: free the stack, not its elements.
        guard let signers = PKCS7_get0_signers(p7, nil, 0) else {
            throw OpenSSLErrorQueue.error(.signedDataInvalid, "PKCS7_get0_signers")
        }
        defer { cshim_sk_X509_free(signers) }
        guard cshim_sk_X509_num(signers) == 1, let signerX509 = cshim_sk_X509_value(signers, 0) else {
            throw CryptoError(.signedDataInvalid, detail: "expected exactly one signer")
        }
        let signer = try certificate(signerX509)
        var others: [Certificate] = []
        let count = cshim_sk_X509_num(carried)
        guard count <= 8 else { throw CryptoError(.signedDataInvalid, detail: "\(count) certificates") }
        for index in 0..<count {
            guard let x509 = cshim_sk_X509_value(carried, index) else { continue }
            let other = try certificate(x509)
            if other != signer { others.append(other) }
        }
        return SignedData(content: try drain(output), signer: signer, otherCertificates: others)
    }

    /// Takes a new reference on a borrowed X509 (no re-parse: OpenSSL 3.0's key decoding is slow).
    private static func certificate(_ x509: OpaquePointer) throws(CryptoError) -> Certificate {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_X509(x509, &out)
        defer { cshim_OPENSSL_free(out) }
        guard length > 0, let out else { throw OpenSSLErrorQueue.error(.derMalformed, "i2d_X509") }
        let der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        guard X509_up_ref(x509) == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_up_ref") }
        return try Certificate.adopt(
            X509Owner(unsafeTakingOwnership: x509),
            der: der,
            consumed: der.count,
            keyDecoded: true
        )
    }

    private static func drain(_ bio: OpaquePointer) throws(CryptoError) -> [UInt8] {
        var content: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let read = BIO_read(bio, &chunk, Int32(chunk.count))
            if read <= 0 { break }
            content += chunk.prefix(Int(read))
            guard content.count <= maxBytes else { throw CryptoError(.signedDataInvalid, detail: "content too large") }
        }
        ERR_clear_error()
        return content
    }
}
