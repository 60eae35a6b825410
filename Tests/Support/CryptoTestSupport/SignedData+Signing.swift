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

    /// Like `sign`, but with PKCS#7 signed attributes (content type, signing time, message digest) and then
    /// the signature replaced by one over the content itself rather than over those attributes: the shape
    /// of some early iOS 14 App Attest receipts, which PKCS#7 verification refuses.
    package static func signOverContentWithSignedAttributes(
        _ content: [UInt8],
        signer: Certificate,
        key: PrivateKey,
        extraCertificates: [Certificate]
    ) throws(CryptoError) -> [UInt8] {
        var signed = try PKCS7Signer.sign(
            content,
            signer: signer,
            key: key,
            extraCertificates: extraCertificates,
            signedAttributes: true
        )
        // The signature is the last OCTET STRING of the DER (no unsigned attributes follow it); an ECDSA
        // signature over the content of the same length replaces it without changing any length.
        guard signed.count > 2,
            let lengthIndex = (signed.count - 80..<signed.count - 60).first(where: { index in
                signed[index - 1] == 0x04 && Int(signed[index]) == signed.count - index - 1
                    && signed[index + 1] == 0x30
            })
        else { throw CryptoError(.internalFailure, detail: "no trailing signature") }
        let length = Int(signed[lengthIndex])
        for _ in 0..<64 {
            let signature = try key.signatureSHA256(for: content)
            if signature.count == length {
                signed.replaceSubrange((lengthIndex + 1)..., with: signature)
                return signed
            }
        }
        throw CryptoError(.internalFailure, detail: "no signature of the length to replace")
    }
}
