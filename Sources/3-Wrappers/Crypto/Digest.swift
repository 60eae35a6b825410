internal import COpenSSL

/// One-shot message digests through OpenSSL's EVP interface.
package enum Digest {
    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        run(EVP_sha256(), Array(bytes), length: 32)
    }

    /// SHA-384 of `bytes` (48 bytes).
    package static func sha384(_ bytes: some Collection<UInt8>) -> [UInt8] {
        run(EVP_sha384(), Array(bytes), length: 48)
    }

    /// SHA-256 of the concatenation of `parts`, without building the concatenation.
    package static func sha256(parts: [[UInt8]]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1, "EVP_DigestInit_ex(sha256) failed")
        for part in parts {
            part.withUnsafeBufferPointer { buffer in
                precondition(EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1)
            }
        }
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &out, &length) == 1 && length == 32)
        return out
    }

    private static func run(_ md: OpaquePointer?, _ input: [UInt8], length: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        let ok = input.withUnsafeBufferPointer { buffer in
            EVP_Digest(buffer.baseAddress, buffer.count, &out, &written, md, nil)
        }
        // A digest of in-memory bytes fails only if OpenSSL itself is broken.
        precondition(ok == 1 && Int(written) == length, "EVP_Digest failed")
        return out
    }
}
