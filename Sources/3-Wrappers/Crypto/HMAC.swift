internal import COpenSSL

/// HMAC-SHA256 (RFC 2104), as SigV4's signing-key derivation and signature need.
package enum HMAC {
    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    package static func sha256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        let key = Array(key)
        let message = Array(message)
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                COpenSSL.HMAC(
                    EVP_sha256(),
                    keyBuffer.baseAddress,
                    Int32(keyBuffer.count),
                    messageBuffer.baseAddress,
                    messageBuffer.count,
                    &out,
                    &length
                )
            }
        }
        precondition(result != nil && length == 32, "HMAC-SHA256 failed")
        return out
    }
}
