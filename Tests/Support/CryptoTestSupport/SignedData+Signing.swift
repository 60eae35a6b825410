package import Crypto

extension SignedData {
    /// Signs `content` as PKCS#7 SignedData with the content embedded (synthetic App Attest receipts).
    /// - Parameters:
    ///   - signer: the certificate of `key`, carried in the structure.
    ///   - extraCertificates: carried too (the receipt's intermediate).
    /// - Throws: `crypto.internal` if OpenSSL fails.
    package static func sign(
        _ content: [UInt8],
        signer: Certificate,
        key: PrivateKey,
        extraCertificates: [Certificate]
    ) throws(CryptoError) -> [UInt8] {
        try PKCS7Signer.sign(content, signer: signer, key: key, extraCertificates: extraCertificates)
    }
}
