internal import COpenSSL
internal import CShims

extension ECPublicKey {
    static func parse(spki der: [UInt8]) throws(CryptoError) -> ECPublicKey {
        // The usual form (named curve, uncompressed point) skips OpenSSL 3.0's slow generic decoder.
        for curve in [Curve.p256, .p384] {
            let prefix = spkiPrefix(curve)
            if der.count == prefix.count + curve.pointLength && der.starts(with: prefix) {
                return try build(curve: curve, point: Array(der[prefix.count...]))
            }
        }
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

    /// Builds a key from an uncompressed X9.62 point on `curve`, which must lie on the curve. OpenSSL's
    /// key object is made on first use (`LazyEVPKey`): registration only stores the key.
    /// - Throws: `crypto.key_unsupported` for a wrong length or prefix, or a point not on the curve.
    static func build(curve: Curve, point: [UInt8]) throws(CryptoError) -> ECPublicKey {
        guard point.count == curve.pointLength, point.first == 0x04 else {
            throw CryptoError(.keyUnsupported, detail: "not an uncompressed \(curve.rawValue) point")
        }
        guard CurveGroup.of(curve)?.contains(point) == true else {
            throw CryptoError(.keyUnsupported, detail: "point is not on \(curve.rawValue)")
        }
        return ECPublicKey(
            key: LazyEVPKey(curve: curve, point: point),
            curve: curve,
            der: spkiPrefix(curve) + point,
            x962: point
        )
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

        var spki: UnsafeMutablePointer<UInt8>? = nil
        let spkiLength = i2d_PUBKEY(owner.pointer, &spki)
        defer { cshim_OPENSSL_free(spki) }
        guard spkiLength > 0, let spki else { throw OpenSSLErrorQueue.error(.internalFailure, "i2d_PUBKEY") }
        let der = Array(UnsafeBufferPointer(start: spki, count: Int(spkiLength)))
        // The SPKI ends with the BIT STRING holding the X9.62 point; OpenSSL writes it uncompressed.
        let pointLength = curve == .p256 ? 65 : 97
        let x962 = Array(der.suffix(pointLength))
        guard x962.first == 0x04, der.count > pointLength, der[der.count - pointLength - 1] == 0x00 else {
            throw CryptoError(.keyUnsupported, detail: "public key is not an uncompressed point")
        }
        return ECPublicKey(key: LazyEVPKey(built: owner), curve: curve, der: der, x962: x962)
    }

    func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        ERR_clear_error()
        defer { ERR_clear_error() }
        // Hash first, then a bare EVP_PKEY_verify: this skips the digest fetch that EVP_DigestVerifyInit
        // repeats on every call in OpenSSL 3.0. The context is per call (not shareable across threads).
        let digest = Digest.sha256(message)
        guard let owner = key.owner(),
            let context = EVP_PKEY_CTX_new_from_pkey(nil, owner.pointer, nil)
        else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1 else { return false }
        let result = signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { md in
                EVP_PKEY_verify(context, sig.baseAddress, sig.count, md.baseAddress, md.count)
            }
        }
        return result == 1
    }
}
