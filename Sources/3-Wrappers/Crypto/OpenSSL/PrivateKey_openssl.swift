internal import AttestCore
internal import COpenSSL
internal import CShims

extension PrivateKey {
    static func importEC(pem: String) throws(CryptoError) -> PrivateKey {
        ERR_clear_error()
        var der = try PEM.decode(pem, labels: ["PRIVATE KEY", "EC PRIVATE KEY"])
        defer { der.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_AutoPrivateKey(nil, &cursor, buffer.count)
            return (key, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let pointer = parsed.0 else { throw OpenSSLErrorQueue.error(.derMalformed, "d2i_AutoPrivateKey") }
        let owner = EVPKeyOwner(unsafeTakingOwnership: pointer)
        guard parsed.1 == der.count else { throw CryptoError(.derMalformed, detail: "trailing bytes after key") }
        let probe = PrivateKey(kind: .p256, owner: owner)
        switch (try? ECPublicKey(derRepresentation: probe.publicDER()))?.curve {
        case .p256: return probe
        case .p384: return PrivateKey(kind: .p384, owner: owner)
        case nil: throw CryptoError(.keyUnsupported, detail: "private key is not EC P-256/P-384")
        }
    }

    func publicDER() -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PUBKEY(owner.pointer, &out)
        defer { cshim_OPENSSL_free(out) }
        precondition(length > 0 && out != nil, "i2d_PUBKEY of own key failed")
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    func pkcs8PEM() -> String {
        guard let info = EVP_PKEY2PKCS8(owner.pointer) else { preconditionFailure("EVP_PKEY2PKCS8 failed") }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_PKCS8_PRIV_KEY_INFO(info, &out)
        precondition(length > 0 && out != nil, "i2d_PKCS8_PRIV_KEY_INFO failed")
        var der = Array(UnsafeBufferPointer(start: out, count: Int(length)))
        OPENSSL_cleanse(out, Int(length))
        cshim_OPENSSL_free(out)
        defer { der.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return PEM.encode(der, label: "PRIVATE KEY")
    }

    func signSHA256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, owner.pointer) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_DigestSignInit")
        }
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "EVP_DigestSign size") }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { msg in
            EVP_DigestSign(context, &signature, &length, msg.baseAddress, msg.count)
        }
        guard signed == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "EVP_DigestSign") }
        return Array(signature.prefix(length))
    }
}

extension ECDSASignature {
    static func raw(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let sig = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            return (sig, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let sig = parsed.0 else { throw OpenSSLErrorQueue.error(.derMalformed, "d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(sig) }
        guard parsed.1 == der.count else { throw CryptoError(.derMalformed, detail: "trailing bytes after signature") }
        var r: OpaquePointer? = nil
        var s: OpaquePointer? = nil
        ECDSA_SIG_get0(sig, &r, &s)  // get0: borrowed, freed with `sig`
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw OpenSSLErrorQueue.error(.derMalformed, "signature integers wider than 32 bytes") }
        return raw
    }

    static func der(fromRaw raw: [UInt8]) throws(CryptoError) -> [UInt8] {
        ERR_clear_error()
        guard raw.count == 64 else { throw CryptoError(.derMalformed, detail: "raw signature must be 64 bytes") }
        guard let sig = ECDSA_SIG_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(sig) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {  // set0: `sig` now owns r and s
            throw OpenSSLErrorQueue.error(.internalFailure, "ECDSA_SIG_set0")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(sig, &out)
        defer { cshim_OPENSSL_free(out) }
        guard length > 0, let out else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_ECDSA_SIG") }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
