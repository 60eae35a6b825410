/// What a proof on a metered call is bound to (docs/api.md section 2, "Binding modes").
package enum BindingMode: String, Sendable, Hashable, CaseIterable {
    /// The proof covers the client-data JSON: challenge, method, path and the body's SHA-256.
    case request
    /// Seed-compatible: iOS signs SHA-256(challenge); Android hashes deviceId + "\n" + challenge.
    case challenge
}
