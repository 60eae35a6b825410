internal import COpenSSL

/// Comparison whose running time does not depend on where two byte strings differ.
package enum ConstantTime {
    /// True when `a` and `b` have the same length and the same bytes (`CRYPTO_memcmp`).
    package static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }
}
