internal import Crypto
internal import Synchronization

/// Parsed P-256 keys by their stored bytes. OpenSSL 3.0 decodes a public key in about as long as it
/// takes to verify a signature with it, and a key signs many assertions; the bytes are public.
final class StoredKeyCache: Sendable {
    private let keys = Mutex<[[UInt8]: ECPublicKey]>([:])
    private let capacity: Int

    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The key for DER SPKI or X9.62 `bytes`, parsed once.
    /// - Throws: `appattest.key_unsupported` for bytes that are not a P-256 public key.
    func key(for bytes: [UInt8]) throws(AppAttestError) -> ECPublicKey {
        if let key = keys.withLock({ $0[bytes] }) { return key }
        let key: ECPublicKey
        do { key = try ECPublicKey(derOrX962: bytes) } catch {
            throw AppAttestError(.keyUnsupported, detail: error.description)
        }
        guard key.curve == .p256 else { throw AppAttestError(.keyUnsupported, detail: "stored key is not P-256") }
        keys.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[bytes] = key
        }
        return key
    }
}
