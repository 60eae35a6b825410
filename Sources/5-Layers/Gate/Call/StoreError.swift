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

    /// How a named store operation (`challenge_spend`, `ceiling_settle`, …) failed: its slug is
    /// `store.<operation>_<how>`, so the set of slugs is bounded by the operations and these kinds.
    package enum Failure: String, Sendable {
        /// The request failed (transport, service error, malformed answer).
        case failed
        /// Refused for contention until the call's deadline (docs/dynamodb.md, "Contention").
        case contended
        /// A transaction cancelled for a reason that is not ours to retry.
        case cancelled
        /// A give-back without the call ID that names its marker.
        case unnamed
    }

    /// `store.<operation>_<how>`.
    package init(_ operation: String, _ how: Failure, detail: String = "") {
        self.init("store.\(operation)_\(how.rawValue)", detail: detail)
    }

    package static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason : "\(reason): \(detail)" }
}
