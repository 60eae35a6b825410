package import FoundationEssentials

/// A challenge as issued to a device: 32 random bytes and the instant it stops being spendable.
package struct IssuedChallenge: Sendable, Hashable {
    package let bytes: [UInt8]
    /// Unix seconds after which the challenge can no longer be spent.
    package let expiresAt: Int64

    package init(bytes: [UInt8], expiresAt: Int64) {
        self.bytes = bytes
        self.expiresAt = expiresAt
    }
}

/// Server-issued, single-use, short-lived challenges (docs/gate.md, rows and writes).
///
/// Contract:
/// - `issue` writes one row per challenge, so several may be live at once for one device; issuing is
///   bounded per device and day (`ChallengeIssueError.tooMany`) unless it replaces a spent one.
/// - `spend` succeeds at most once per challenge, only for the device it was issued to and only before
///   it expires; expiry is part of the write's condition, not left to TTL deletion. A resend of the
///   same spend after a lost answer still reports success (own-write token).
/// - Anything that is not exactly 32 bytes is refused without asking the store.
package protocol ChallengeStore: Sendable {
    /// Issues a new challenge for `deviceID`.
    /// - Parameter replacingSpent: true when the caller has just spent one of this device's challenges
    ///   (a metered call handing out the next one): live challenges cannot grow, so the per-device bound
    ///   is not consulted and no request is spent on it.
    /// - Throws: `ChallengeIssueError.tooMany` past the per-device bound, `StoreError` when the store fails.
    func issue(deviceID: String, replacingSpent: Bool, now: Date) async throws -> IssuedChallenge

    /// Spends `challenge` for `deviceID`.
    /// - Returns: true when this call spent it; false when it was never issued to this device, is
    ///   already spent, or has expired.
    /// - Throws: `StoreError` when the store fails.
    func spend(deviceID: String, challenge: [UInt8], now: Date) async throws -> Bool

    /// Counts one challenge handed out to replace a spent one against the device's daily bound: a refused
    /// call's replacement, so that spending and refusing cannot loop without end (docs/gate.md, "Rows and
    /// writes").
    /// - Throws: `ChallengeIssueError.tooMany` past the bound (the replacement is then not handed out),
    ///   `StoreError` when the store fails.
    func countReplacement(deviceID: String, now: Date) async throws
}

/// The device asked for more challenges today than any genuine install needs.
package struct ChallengeIssueError: Error, Hashable {
    package static let tooMany = ChallengeIssueError()
}

/// The fixed size of every challenge we issue.
package let challengeByteCount = 32
