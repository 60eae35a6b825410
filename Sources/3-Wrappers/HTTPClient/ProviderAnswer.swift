/// What an attestation provider's HTTP status means to the gate, the same for Apple's APIs (DeviceCheck, its
/// two bits, the App Attest receipt exchange) and Google's (the token endpoint, Play Integrity's decode and
/// device recall): one mapping, so no client reads a 408 or a 429 differently (docs/gate.md, "Failure policy").
/// Each client turns the class into its own bounded reason.
package enum ProviderAnswer: Sendable, Hashable {
    /// 2xx.
    case success
    /// 400: the provider refused what the caller sent (a token, a body); the caller's fault.
    case rejected
    /// 401, 403: the provider refused our own credential (a key, an access token): never the caller's fault.
    case unauthorized
    /// 429: the provider's rate limit on our account.
    case rateLimited
    /// 408 and 5xx: the provider timed out or failed.
    case unavailable
    /// Any other status: not shown to be ours, so it must not open the gate.
    case refused(Int)

    package init(status: Int) {
        switch status {
        case 200...299: self = .success
        case 400: self = .rejected
        case 401, 403: self = .unauthorized
        case 429: self = .rateLimited
        case 408, 500...599: self = .unavailable
        default: self = .refused(status)
        }
    }
}
