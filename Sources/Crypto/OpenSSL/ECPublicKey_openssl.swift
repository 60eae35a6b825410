internal import COpenSSL
internal import CShims

extension ECPublicKey {
    static func parse(spki der: [UInt8]) throws(CryptoError) -> ECPublicKey {
        ERR_clear_error()
        guard !der.isEmpty, der.count <= 1024 else { throw CryptoError(.derMalformed, detail: "SPKI size") }
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            return (key, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let pointer = parsed.0 else { throw OpenSSLErrorQueue.error(.derMalformed, "d2i_PUBKEY") }
        let owner = EVPKeyOwner(unsafeTakingOwnership: pointer)
        guard parsed.1 == der.count else {
            throw CryptoError(.derMalformed, detail: "\(der.count - parsed.1) trailing bytes after SPKI")
        }
        return try wrap(owner)
    }

    /// Wraps an owned EVP_PKEY after checking it is EC on an accepted curve.
    static func wrap(_ owner: EVPKeyOwner) throws(CryptoError) -> ECPublicKey {
        defer { ERR_clear_error() }
        guard EVP_PKEY_is_a(owner.pointer, "EC") == 1 else {
            throw CryptoError(.keyUnsupported, detail: "not an EC key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(owner.pointer, &name, name.count, &nameLength) == 1,
            let curve = Curve(
                rawValue: String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            )
        else { throw CryptoError(.keyUnsupported, detail: "EC curve not P-256/P-384") }

        var point: UnsafeMutablePointer<UInt8>? = nil
        let pointLength = EVP_PKEY_get1_encoded_public_key(owner.pointer, &point)
        defer { cshim_OPENSSL_free(point) }
        guard pointLength > 0, let point else { throw OpenSSLErrorQueue.error(.derMalformed, "encoded point") }
        let x962 = Array(UnsafeBufferPointer(start: point, count: pointLength))

        var spki: UnsafeMutablePointer<UInt8>? = nil
        let spkiLength = i2d_PUBKEY(owner.pointer, &spki)
        defer { cshim_OPENSSL_free(spki) }
        guard spkiLength > 0, let spki else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_PUBKEY") }
        let der = Array(UnsafeBufferPointer(start: spki, count: Int(spkiLength)))
        return ECPublicKey(owner: owner, curve: curve, der: der, x962: x962)
    }

    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, owner.pointer) == 1 else { return false }
        let result = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        return result == 1
    }
}
