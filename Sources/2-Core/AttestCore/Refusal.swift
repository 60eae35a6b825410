/// An error answer of the API (docs/api.md section 2): its HTTP status and its code, in the only error shape
/// a client sees, `{"error":"<code>"}`. The code never names the check that failed; the reason slug goes to
/// the log. Every handler answers its refusals through one of these constants, so the contract check
/// (scripts/check-contract.py) reads the codes here.
public struct Refusal: Sendable, Hashable {
    public let status: Int
    public let code: String

    init(_ status: Int, _ code: String) {
        self.status = status
        self.code = code
    }

    /// `{"error":"<code>"}`.
    public var body: [UInt8] { Array(#"{"error":"\#(code)"}"#.utf8) }

    public static let invalidDeviceID = Refusal(400, "invalid_device_id")
    public static let invalidRequest = Refusal(400, "invalid_request")
    public static let attestationRejected = Refusal(403, "attestation_rejected")
    public static let attestationRequired = Refusal(403, "attestation_required")
    /// An operator blocked the device ID or its App Attest key (`attestgate device block`; docs/operations.md).
    public static let deviceBlocked = Refusal(403, "device_blocked")
    public static let notFound = Refusal(404, "not_found")
    public static let methodNotAllowed = Refusal(405, "method_not_allowed")
    public static let requestTooLarge = Refusal(413, "request_too_large")
    public static let tooManyChallenges = Refusal(429, "too_many_challenges")
    public static let quotaExhausted = Refusal(429, "quota_exhausted")
    public static let upstreamUnavailable = Refusal(502, "upstream_unavailable")
    public static let upstreamTimedOut = Refusal(504, "upstream_unavailable")
    public static let dailyBudgetExhausted = Refusal(503, "daily_budget_exhausted")
    public static let unavailable = Refusal(503, "unavailable")
}
