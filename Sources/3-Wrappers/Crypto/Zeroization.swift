internal import COpenSSL

/// Wiping secret bytes (service-account PEMs, .p8 keys) once they have been parsed.
package enum Zeroization {
    /// Overwrites every byte of `bytes` with zero in a way the optimiser cannot drop (`OPENSSL_cleanse`),
    /// then empties the array.
    package static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
        bytes.removeAll()
    }
}
