/// What the client did on its own, for the app's logs and metrics (never for the user). Delivered
/// synchronously on the calling task to `Configuration.onEvent`; keep the handler short.
public enum ClientEvent: Sendable, Hashable {
    /// A new App Attest key was made (`generateKey`).
    case keyGenerated
    /// The key was forgotten (`invalidKey`, an attestation the server refused, or proofs refused twice).
    case keyReset(reason: String)
    /// `attestKey` answered `serverUnavailable`; it is retried with the same key and hash.
    case attestationDeferred
    /// The server answered the key registration (`bound`, `re_registered`, `rebound`).
    case keyRegistered(binding: String)
    /// `403 attestation_required` after a proof: the call is tried again (`step` 1: a fresh challenge, 2: a
    /// new key).
    case recovery(step: Int)
    /// A failure worth retrying; the call waits `delay` seconds (`reason`: a bounded slug).
    case retry(reason: String, delay: Double)
    /// No evidence could be attached to a call (the call went without proof).
    case noEvidence(reason: String)
}
