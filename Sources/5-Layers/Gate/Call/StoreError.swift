/// Our own store failed (DynamoDB unreachable, throttled past retries, malformed answer).
///
/// The gate maps it to UNAVAILABLE (the route's on-unavailable policy); the allowance and the ceiling
/// fail closed on it (`503 unavailable`), as docs/api.md section 7 fixes.
package struct StoreError: Error, Hashable, CustomStringConvertible {
    /// A bounded slug for logs and metrics (`store.challenge_spend_failed`, …).
    package let reason: String
    /// The underlying error's description, for logs only.
    package let detail: String

    package init(_ reason: String, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason : "\(reason): \(detail)" }
}
