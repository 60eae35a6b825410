/// Whose allowance a metered call draws on: a guest device or a signed-in user.
package enum Subject: Sendable, Hashable {
    /// A guest, identified by the `X-Device-ID` UUID.
    case device(String)
    /// A signed-in user, identified by the JWT authorizer's `sub` claim.
    case user(String)

    /// The table partition key (docs/api.md section 6).
    package var partitionKey: String {
        switch self {
        case .device(let id): "DEVICE#\(id)"
        case .user(let sub): "USER#\(sub)"
        }
    }

    /// A short, non-identifying suffix for logs (the last six characters).
    package var logSuffix: String {
        switch self {
        case .device(let id): "…" + String(id.suffix(6))
        case .user(let sub): "user…" + String(sub.suffix(6))
        }
    }
}
