internal import COpenSSL
internal import CShims
internal import FoundationEssentials
internal import Glibc

extension Certificate {
    /// Largest certificate we parse; Apple's are under 1.5 KB.
    static let maxDERBytes = 16 * 1024

    static func parse(der: [UInt8], decodingKey: Bool) throws(CryptoError) -> Certificate {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard !der.isEmpty, der.count <= maxDERBytes else {
            throw CryptoError(.derMalformed, detail: "certificate of \(der.count) bytes")
        }
        var context: OpaquePointer? = nil  // the default library context
        if !decodingKey {
            guard let keyless = KeylessContext.shared else {
                throw OpenSSLErrorQueue.error(.internalFailure, "keyless library context")
            }
            context = keyless.pointer
        }
        // d2i into an object made for `context`; OpenSSL 3.0 frees it and clears `slot` when parsing fails
        // (X509_free(nil) below is then a no-op). It does not look at the extensions: the check after it
        // is what refuses malformed ones.
        var slot = X509_new_ex(context, nil)
        guard slot != nil else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_new_ex") }
        let consumed: Int? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard d2i_X509(&slot, &cursor, buffer.count) != nil else { return nil }
            return cursor.map { $0 - buffer.baseAddress! } ?? 0
        }
        guard let consumed, let pointer = slot else {
            X509_free(slot)
            throw OpenSSLErrorQueue.error(.derMalformed, "d2i_X509")
        }
        let owner = X509Owner(unsafeTakingOwnership: pointer)
        // Computes OpenSSL's extension cache; a certificate with unparsable extensions is malformed. Keep
        // this: d2i_X509 itself accepts them.
        guard X509_get_extension_flags(pointer) & UInt32(EXFLAG_INVALID) == 0 else {
            throw CryptoError(.derMalformed, detail: "malformed extensions")
        }
        return try adopt(owner, der: der, consumed: consumed, keyDecoded: decodingKey)
    }

    /// Wraps an owned X509 whose DER is `der`; `consumed` is how far d2i advanced.
    static func adopt(
        _ owner: X509Owner,
        der: [UInt8],
        consumed: Int,
        keyDecoded: Bool
    ) throws(CryptoError)
        -> Certificate
    {
        // The input pointer must have advanced by exactly the length: no trailing bytes.
        guard consumed == der.count else {
            throw CryptoError(.derMalformed, detail: "\(der.count - consumed) trailing bytes after certificate")
        }
        // get0: the times are borrowed from the certificate.
        guard let notBefore = date(X509_get0_notBefore(owner.pointer)),
            let notAfter = date(X509_get0_notAfter(owner.pointer))
        else { throw CryptoError(.derMalformed, detail: "unreadable validity") }
        return Certificate(owner: owner, der: der, notBefore: notBefore, notAfter: notAfter, keyDecoded: keyDecoded)
    }

    /// Reads a validity time in RFC 5280's only forms (4.1.2.5): UTCTime `YYMMDDHHMMSSZ` or GeneralizedTime
    /// `YYYYMMDDHHMMSSZ`. `ASN1_TIME_to_tm` alone would also take offsets and fractions, which OpenSSL's
    /// chain check (`X509_cmp_time`) refuses.
    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date? {
        guard let time, let bytes = time.pointee.data else { return nil }
        let length = Int(time.pointee.length)
        let expected = time.pointee.type == V_ASN1_UTCTIME ? 13 : time.pointee.type == V_ASN1_GENERALIZEDTIME ? 15 : 0
        guard length == expected, bytes[length - 1] == UInt8(ascii: "Z"),
            (0..<(length - 1)).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[$0]) })
        else { return nil }
        var broken = tm()
        guard ASN1_TIME_to_tm(time, &broken) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&broken)))
    }

    func subjectLine() -> String {
        // get0-style: the name is borrowed from the certificate.
        guard let name = X509_get_subject_name(owner.pointer) else { return "" }
        var buffer = [CChar](repeating: 0, count: 512)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func extractPublicKey() throws(CryptoError) -> ECPublicKey {
        ERR_clear_error()
        defer { ERR_clear_error() }
        // get0 throughout: the algorithm, parameters and point are borrowed from the certificate.
        var algorithm: OpaquePointer? = nil
        var point: UnsafePointer<UInt8>? = nil
        var pointLength: Int32 = 0
        var parameters: UnsafeMutablePointer<X509_ALGOR>? = nil
        guard let spki = X509_get_X509_PUBKEY(owner.pointer),
            X509_PUBKEY_get0_param(&algorithm, &point, &pointLength, &parameters, spki) == 1,
            OBJ_obj2nid(algorithm) == NID_X9_62_id_ecPublicKey
        else { throw CryptoError(.keyUnsupported, detail: "not an EC key") }
        var parameterType: Int32 = 0
        var parameterValue: UnsafeRawPointer? = nil
        X509_ALGOR_get0(nil, &parameterType, &parameterValue, parameters)
        guard parameterType == V_ASN1_OBJECT, let parameterValue else {
            throw CryptoError(.keyUnsupported, detail: "EC key without a named curve")
        }
        let curve: ECPublicKey.Curve
        switch OBJ_obj2nid(OpaquePointer(parameterValue)) {
        case NID_X9_62_prime256v1: curve = .p256
        case NID_secp384r1: curve = .p384
        default: throw CryptoError(.keyUnsupported, detail: "EC curve not P-256/P-384")
        }
        guard let point, pointLength > 0 else { throw CryptoError(.keyUnsupported, detail: "empty EC point") }
        return try ECPublicKey.build(
            curve: curve,
            point: Array(UnsafeBufferPointer(start: point, count: Int(pointLength)))
        )
    }

    func extensionBytes(oid: String) -> [UInt8]? {
        defer { ERR_clear_error() }
        guard let object = OBJ_txt2obj(oid, 1) else { return nil }
        defer { ASN1_OBJECT_free(object) }
        let index = X509_get_ext_by_OBJ(owner.pointer, object, -1)
        guard index >= 0, X509_get_ext_by_OBJ(owner.pointer, object, index) < 0 else { return nil }
        // get0 / get: borrowed from the certificate.
        guard let ext = X509_get_ext(owner.pointer, index), let data = X509_EXTENSION_get_data(ext) else { return nil }
        let length = Int(ASN1_STRING_length(data))
        guard length > 0, let bytes = ASN1_STRING_get0_data(data) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    func extendedKeyUsages() -> [String] {
        defer { ERR_clear_error() }
        var critical: Int32 = 0
        // d2i-style: returns a new stack we own.
        guard let raw = X509_get_ext_d2i(owner.pointer, NID_ext_key_usage, &critical, nil) else { return [] }
        let stack = OpaquePointer(raw)
        defer { cshim_sk_ASN1_OBJECT_pop_free(stack) }
        var oids: [String] = []
        for index in 0..<cshim_sk_ASN1_OBJECT_num(stack) {
            guard let object = cshim_sk_ASN1_OBJECT_value(stack, index) else { continue }
            var text = [CChar](repeating: 0, count: 128)
            let length = OBJ_obj2txt(&text, Int32(text.count), object, 1)
            if length > 0 {
                oids.append(String(decoding: text.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return oids
    }
}
