internal import COpenSSL

/// One-shot message digests through OpenSSL's EVP interface.
package enum Digest {
    /// SHA-256 and SHA-384 fetched once from the default provider. `EVP_sha256()` is a legacy handle that
    /// OpenSSL 3.0 fetches again (name lookup, method store) inside every `EVP_Digest` and
    /// `EVP_DigestInit_ex` (100 bytes: 0.8 µs that way, 0.35 µs with the method fetched once). Never freed;
    /// `nonisolated(unsafe)`: written once by Swift's lazy global initialisation, then only read, and
    /// OpenSSL's method objects are safe to share between threads. Nil (never seen) falls back to the
    /// legacy handle.
    nonisolated(unsafe) private static let sha256Method: OpaquePointer? = EVP_MD_fetch(nil, "SHA2-256", nil)
    nonisolated(unsafe) private static let sha384Method: OpaquePointer? = EVP_MD_fetch(nil, "SHA2-384", nil)

    /// SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        run(sha256Method ?? EVP_sha256(), Array(bytes), length: 32)
    }

    /// SHA-384 of `bytes` (48 bytes).
    package static func sha384(_ bytes: some Collection<UInt8>) -> [UInt8] {
        run(sha384Method ?? EVP_sha384(), Array(bytes), length: 48)
    }

    /// SHA-256 of the concatenation of `parts`, without building the concatenation.
    package static func sha256(parts: [[UInt8]]) -> [UInt8] {
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        precondition(
            EVP_DigestInit_ex(context, sha256Method ?? EVP_sha256(), nil) == 1,
            "EVP_DigestInit_ex(sha256) failed"
        )
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
