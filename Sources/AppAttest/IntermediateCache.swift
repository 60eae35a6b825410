internal import Crypto
internal import Synchronization

/// Remembers intermediates that a full chain verification accepted, keyed by SHA-256 of their DER
/// and the root's fingerprint, so later attestations cost one signature check on the leaf.
/// Leaves are never cached: each one carries a fresh nonce.
package final class IntermediateCache: Sendable {
    private let verified = Mutex<Set<[UInt8]>>([])
    /// Apple rotates intermediates rarely; a handful of entries is plenty.
    private let capacity: Int

    package init(capacity: Int = 16) { self.capacity = capacity }

    func key(intermediate: Certificate, root: Certificate) -> [UInt8] {
        Digest.sha256(parts: [intermediate.derRepresentation, root.sha256Fingerprint])
    }

    func contains(_ key: [UInt8]) -> Bool { verified.withLock { $0.contains(key) } }

    func insert(_ key: [UInt8]) {
        verified.withLock { set in
            if set.count >= capacity { set.removeAll() }
            set.insert(key)
        }
    }
}
