public import AttestCore
internal import COpenSSL

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`), seeded by the operating system.
public struct SecureRandom: RandomSource {
    public init() {}

    public func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        // Without randomness no challenge is safe to issue; stopping is the only honest answer.
        precondition(ok == 1, "RAND_bytes failed")
        return out
    }
}
