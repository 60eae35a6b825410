/// Whose allowance a metered call draws on: a guest device, a signed-in user, or a debug token.
package enum Subject: Sendable, Hashable {
    /// A guest, identified by the `X-Device-ID` UUID.
    case device(String)
    /// A signed-in user, identified by the JWT authorizer's `sub` claim.
    case user(String)
    /// A debug token, by its name: one allowance per token whatever device IDs its calls carry, so a leaked
    /// token cannot mint allowances (docs/clients.md, "Debug tokens").
    case debugToken(String)

    /// The table partition key (docs/api.md section 6).
    package var partitionKey: String {
        switch self {
        case .device(let id): "DEVICE#\(id)"
        case .user(let sub): "USER#\(sub)"
        case .debugToken(let name): "DEBUG#\(name)"
        }
    }

    /// A short, non-identifying suffix for logs (the last six characters; a debug token's name, which the
    /// operator chose to be read).
    package var logSuffix: String {
        switch self {
        case .device(let id): "…" + String(id.suffix(6))
        case .user(let sub): "user…" + String(sub.suffix(6))
        case .debugToken(let name): "debug:" + name
        }
    }
}
