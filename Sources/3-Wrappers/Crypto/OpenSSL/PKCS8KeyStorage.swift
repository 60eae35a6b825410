internal import COpenSSL

/// The single owner of one OpenSSL `EVP_PKEY` holding a private key.
///
/// `@unchecked Sendable`: the key is never mutated after init, and every operation builds its own
/// `EVP_MD_CTX`, which `openssl-threads(7)` allows for concurrent use of a shared `EVP_PKEY`.
final class PKCS8KeyStorage: @unchecked Sendable {
    enum Kind { case rsa, ec }

    private let key: OpaquePointer
    let kind: Kind
    let bits: Int

    /// Adopts `key`. If this throws, ownership has not been taken.
    private init(unsafeTakingOwnership key: OpaquePointer, expecting kind: Kind) throws(PrivateKeyError) {
        let actual = EVP_PKEY_get_base_id(key)
        let expected = kind == .rsa ? EVP_PKEY_RSA : EVP_PKEY_EC
        guard actual == expected else {
            throw PrivateKeyError(.keyUnsupported, detail: "key type \(actual), expected \(expected)")
        }
        self.key = key
        self.kind = kind
        self.bits = Int(EVP_PKEY_get_bits(key))
    }

    deinit { EVP_PKEY_free(key) }

    /// Parses PEM bytes. An encrypted key is refused (an empty passphrase is supplied, so OpenSSL never
    /// prompts on a terminal).
    convenience init(pem: [UInt8], expecting kind: Kind) throws(PrivateKeyError) {
        guard !pem.isEmpty, pem.count <= 16 * 1024 else {
            throw PrivateKeyError(.keyMalformed, detail: "PEM of \(pem.count) bytes")
        }
        ERR_clear_error()
        let parsed: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            var empty: [CChar] = [0]
            return empty.withUnsafeMutableBytes { passphrase in
                PEM_read_bio_PrivateKey(bio, nil, nil, passphrase.baseAddress)
            }
        }
        guard let parsed else { throw PrivateKeyError(.keyMalformed, detail: drainOpenSSLErrors()) }
        do {
            try self.init(unsafeTakingOwnership: parsed, expecting: kind)
        } catch {
            EVP_PKEY_free(parsed)
            throw error
        }
    }

    /// Signs SHA-256(`message`): PKCS#1 v1.5 for RSA, DER ECDSA for EC.
    func signSHA256(_ message: [UInt8]) throws(PrivateKeyError) -> [UInt8] {
        ERR_clear_error()
        guard let context = EVP_MD_CTX_new() else { throw PrivateKeyError(.signFailed, detail: "EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else {
            throw PrivateKeyError(.signFailed, detail: drainOpenSSLErrors())
        }
        var length = 0
        let sized = message.withUnsafeBufferPointer { EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }
        guard sized == 1, length > 0 else { throw PrivateKeyError(.signFailed, detail: drainOpenSSLErrors()) }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            signature.withUnsafeMutableBufferPointer { output in
                EVP_DigestSign(context, output.baseAddress, &length, input.baseAddress, input.count)
            }
        }
        guard signed == 1 else { throw PrivateKeyError(.signFailed, detail: drainOpenSSLErrors()) }
        return Array(signature.prefix(length))
    }

    /// Verifies a signature made by `signSHA256` with the public half.
    func verifySHA256(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress, msg.count) == 1
            }
        }
    }

    /// The public half as DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    func publicKeyDER() -> [UInt8] {
        let length = i2d_PUBKEY(key, nil)
        precondition(length > 0, "i2d_PUBKEY failed on a loaded key")
        var der = [UInt8](repeating: 0, count: Int(length))
        der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_PUBKEY(key, &cursor)
        }
        return der
    }
}

/// Empties OpenSSL's per-thread error queue into a log detail (at most 8 entries). Call it in the same
/// synchronous call that failed, before any `await`.
private func drainOpenSSLErrors() -> String {
    var messages: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        if messages.count < 8 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
    }
    return messages.isEmpty ? "no OpenSSL error" : messages.joined(separator: "; ")
}
