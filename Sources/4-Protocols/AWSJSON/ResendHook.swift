internal import Synchronization

/// A test hook that makes the client send a request again after the first send has landed, exactly as an
/// SDK does when a write commits but its response is lost (docs/resend-harness.md; botocore's
/// `needs-retry.dynamodb.UpdateItem` handler answering "retry after 0 s").
///
/// After every response (success or service error) the client asks `shouldResend(operation, attempt)`;
/// on `true` it drops that response and sends the same request body again as the next attempt (re-signed,
/// within `maxAttempts`, no backoff, no quota). Production code never sets a hook.
///
/// ```swift
/// let hook = ResendHook.firstSend(of: ["UpdateItem"])
/// let client = DynamoDBClient(configuration: config.with(resendHook: hook), transport: transport)
/// // ... every UpdateItem is now sent twice; hook.resent counts the resends.
/// ```
package final class ResendHook: Sendable {
    private let decide: @Sendable (_ operation: String, _ attempt: Int) -> Bool
    private let count = Atomic<Int>(0)

    /// - Parameter shouldResend: called with the operation name (`UpdateItem`) and the 1-based attempt whose
    ///   response just arrived.
    package init(_ shouldResend: @escaping @Sendable (_ operation: String, _ attempt: Int) -> Bool) {
        self.decide = shouldResend
    }

    /// Resends every request of `operations` once, after its first send landed.
    package static func firstSend(of operations: Set<String>) -> ResendHook {
        ResendHook { operation, attempt in attempt == 1 && operations.contains(operation) }
    }

    /// How many resends the hook has caused.
    package var resent: Int { count.load(ordering: .sequentiallyConsistent) }

    func shouldResend(_ operation: String, attempt: Int) -> Bool {
        guard decide(operation, attempt) else { return false }
        count.add(1, ordering: .sequentiallyConsistent)
        return true
    }
}
