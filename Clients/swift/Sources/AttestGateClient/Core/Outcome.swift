/// What one call came to, typed by what the app can do about it (docs/api.md section 2, the error table).
/// Every case but `networkFailure` is an answer of the server.
public enum Outcome: Sendable {
    /// Every layer admitted the call: the AI provider's answer as it came (its own 4xx too).
    case served(Answer)
    /// A streamed route admitted the call: the provider's events as they arrive.
    case streamed(ServerSentEvents, quotaRemaining: Int?)
    /// `429 quota_exhausted`: today's allowance of this feature is used up; it comes back after
    /// `retryAfter` seconds (the next day in the server's `BUDGET_TIMEZONE`). Do not retry before.
    case quotaExhausted(retryAfter: Double?, quotaRemaining: Int?)
    /// `503 daily_budget_exhausted`: the service's daily ceiling on unpaid calls is reached, for everyone,
    /// until `retryAfter` seconds from now.
    case dailyBudgetExhausted(retryAfter: Double?)
    /// `403 attestation_required` after the recovery (once with a fresh challenge, then with a new key): the
    /// server does not accept this install's proof. Retrying cannot fix it; the server never says why.
    case attestationRequired
    /// No proof could be made on this device (App Attest unsupported or failing) and the route requires one.
    /// Routes in `monitor` mode, or with an `unproven` allowance, serve such calls: the server's choice.
    case attestationUnavailable(MissingEvidence)
    /// `403 device_blocked`: an operator blocked this device ID or its App Attest key. Do not retry; show a
    /// way to reach support.
    case deviceBlocked
    /// `502`/`504 upstream_unavailable`: the AI provider failed or timed out. Whether the unit came back is
    /// the route's release policy (`quotaRemaining` says where the allowance stands).
    case upstreamUnavailable(status: Int, quotaRemaining: Int?)
    /// `503 unavailable` after the retries (the server's store failed: it fails closed), Lambda's bare `429`
    /// after the retries, or a platform 5xx that is none of AttestGate's answers.
    case serviceUnavailable(status: Int, retryAfter: Double?)
    /// `429 too_many_challenges`: this device ID asked for too many challenges today (a loop in the app).
    case tooManyChallenges(retryAfter: Double?)
    /// A refusal that names a bug on the app's side: `invalid_device_id`, `invalid_request`,
    /// `request_too_large`, `not_found`, `method_not_allowed` (`code` is the body's `error`), or arguments the
    /// library refused before any I/O (`status` 0, `code` `client.invalid_request`).
    case invalidRequest(status: Int, code: String?)
    /// No answer: no connection after the retries, or an answer lost after the request left (not repeated:
    /// the call may have been served).
    case networkFailure(TransportError)

    /// `X-Quota-Remaining`: calls left today on the route's feature, where the answer carried it.
    public var quotaRemaining: Int? {
        switch self {
        case .served(let answer): answer.quotaRemaining
        case .streamed(_, let remaining), .quotaExhausted(_, let remaining), .upstreamUnavailable(_, let remaining):
            remaining
        default: nil
        }
    }
}

/// The provider's answer to an admitted call.
public struct Answer: Sendable, Hashable {
    /// The provider's status (2xx, or its own 4xx passed on).
    public let status: Int
    public let contentType: String?
    public let body: [UInt8]
    /// `X-Quota-Remaining`.
    public let quotaRemaining: Int?

    public init(status: Int, contentType: String?, body: [UInt8], quotaRemaining: Int?) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.quotaRemaining = quotaRemaining
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// The server's answer to a key registration (`POST /v1/attest/keys`), or why there was none.
public enum Registration: Sendable, Hashable {
    /// `200`: `bound` (a new key for this device ID), `re_registered` (the same key again) or `rebound` (a
    /// new key replacing the device ID's old one, after a reinstall).
    case registered(binding: String)
    /// The key was registered earlier (or may have been: an answer lost); nothing was sent.
    case alreadyRegistered
    /// No App Attest here (`isSupported` false, or the framework failing): calls go without that proof.
    case unavailable(AppAttestError.Reason)
    /// The server refused, or could not be reached: the outcome says which.
    case failed(RegistrationFailure)
}

/// Why a key registration did not complete.
public enum RegistrationFailure: Sendable, Hashable {
    /// `403 attestation_rejected`, also after a new key.
    case rejected
    /// `503 unavailable`, or no connection, after the retries.
    case unavailable(status: Int)
    /// `429 too_many_challenges` on the challenge it needed.
    case tooManyChallenges
    /// An answer that names a bug (`400 invalid_request`, `invalid_device_id`, `404`: App Attest not
    /// configured on the server).
    case invalid(status: Int, code: String?)
    /// This install already made `Configuration.maxNewKeysPerDay` keys in the last 24 hours: no new one
    /// until the oldest is a day old (each key counts in Apple's fraud-risk metric for the device).
    case keyLimit
}
