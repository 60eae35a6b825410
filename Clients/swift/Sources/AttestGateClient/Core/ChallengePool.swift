/// A challenge the server issued to this device ID (base64 of 32 bytes), and when it expires.
struct Challenge: Sendable, Hashable {
    let value: String
    /// Unix seconds.
    let expiresAt: Int64

    /// A challenge as the server writes them: standard base64 of 32 bytes.
    static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 44 && Bytes.fromBase64(value)?.count == 32
    }
}

/// Challenges the server handed out with earlier answers (`X-Attest-Next-Challenge`), kept for the next
/// calls, so that an app asks the challenge endpoint only for its first call (docs/api.md section 2).
///
/// Each challenge is single-use: `take` removes it, so calls running in parallel never share one. One
/// within `margin` seconds of its expiry is dropped, not handed out (the call still has to reach the
/// server). At most `capacity` are kept; those that expire first go first.
actor ChallengePool {
    private let capacity: Int
    private let margin: Int64
    private var entries: [Challenge] = []

    init(capacity: Int = 8, margin: Int64 = 15) {
        self.capacity = capacity
        self.margin = margin
    }

    /// Keeps `challenge` until its expiry less the margin.
    func offer(_ challenge: Challenge) {
        guard !entries.contains(where: { $0.value == challenge.value }) else { return }
        entries.append(challenge)
        entries.sort { $0.expiresAt < $1.expiresAt }
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }

    /// The live challenge that expires first, removed from the pool; nil when none is left.
    func take(now: Int64) -> Challenge? {
        entries.removeAll { $0.expiresAt - margin <= now }
        return entries.isEmpty ? nil : entries.removeFirst()
    }

    /// How many are kept (expired ones included until the next `take`).
    var count: Int { entries.count }

    /// Forgets every challenge.
    func clear() { entries.removeAll() }
}
