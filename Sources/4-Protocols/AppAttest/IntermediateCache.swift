internal import Crypto
internal import Synchronization

/// Remembers CA certificates that a full chain verification accepted, keyed by SHA-256 of their DER
/// and the root's fingerprint, with the parsed certificate: later attestations skip both the parse
/// and the intermediate's signature check (and the App Attest intermediate's P-384 check), leaving one
/// signature check on the leaf.
///
/// Used for the App Attest intermediate and for the receipt signer's chain. Device leaves are never
/// cached: each carries a fresh nonce.
package final class IntermediateCache: Sendable {
    private let verified = Mutex<[[UInt8]: Certificate]>([:])
    private let receiptChains = Mutex<[[UInt8]: VerifiedReceiptChain]>([:])
    /// Apple rotates intermediates rarely; a handful of entries is plenty.
    private let capacity: Int

    package init(capacity: Int = 16) { self.capacity = capacity }

    /// The cache key for `ders` (the CA certificates, in order) under `root`.
    static func key(_ ders: [[UInt8]], root: Certificate) -> [UInt8] {
        Digest.sha256(parts: ders + [root.sha256Fingerprint])
    }

    /// The verified certificate stored under `key`, if any.
    func certificate(_ key: [UInt8]) -> Certificate? { verified.withLock { $0[key] } }

    func insert(_ key: [UInt8], _ certificate: Certificate) {
        verified.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = certificate
        }
    }

    /// The receipt signer chain stored under `key` (`key(_:root:)` of its DERs, signer first), if any.
    func receiptChain(_ key: [UInt8]) -> VerifiedReceiptChain? { receiptChains.withLock { $0[key] } }

    func insert(_ key: [UInt8], receiptChain: VerifiedReceiptChain) {
        receiptChains.withLock { entries in
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = receiptChain
        }
    }
}

/// A receipt signer chain that the full path (OpenSSL's PKCS#7 parse and chain build) accepted: its
/// certificates, signer first, whose windows are still checked at every use, and the signer's key, so a
/// later receipt of the same chain costs one P-256 verification with a key object already built.
struct VerifiedReceiptChain: Sendable {
    let certificates: [Certificate]
    let signerKey: ECPublicKey
}
