/// Why a Play Integrity check did not answer `genuine`: the reason slug for logs and metrics.
///
/// The slug never reaches the client (docs/api.md §2: the error body never says which check failed).
package struct PlayIntegrityError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        // Before any cost.
        package static let tokenEmpty = Reason("play.token_empty")
        package static let tokenTooLong = Reason("play.token_too_long")
        package static let tokenMalformed = Reason("play.token_malformed")
        // Our side: credentials, budget and quota.
        package static let credentialsUnavailable = Reason("play.credentials_unavailable")
        package static let budgetExhausted = Reason("play.budget_exhausted")
        package static let budgetStoreFailed = Reason("play.budget_store_failed")
        package static let quotaSoftCapReached = Reason("play.quota_soft_cap")
        package static let quotaStoreFailed = Reason("play.quota_store_failed")
        /// Too little of the invocation was left to decode: nothing was spent.
        package static let noTimeLeft = Reason("play.no_time_left")
        // The decode call.
        package static let decodeInvalidToken = Reason("play.decode_invalid_token")
        package static let decodeUnauthorized = Reason("play.decode_unauthorized")
        package static let decodeRateLimited = Reason("play.decode_rate_limited")
        package static let decodeServerError = Reason("play.decode_server_error")
        package static let decodeTransport = Reason("play.decode_transport")
        package static let decodeRefused = Reason("play.decode_refused")
        package static let decodeMalformed = Reason("play.decode_malformed")
        // The verdict (each missing field is a rejection, never `unavailable`).
        package static let payloadMissing = Reason("play.payload_missing")
        package static let packageMissing = Reason("play.package_missing")
        package static let packageMismatch = Reason("play.package_mismatch")
        package static let requestHashMissing = Reason("play.request_hash_missing")
        package static let requestHashMismatch = Reason("play.request_hash_mismatch")
        package static let timestampMissing = Reason("play.timestamp_missing")
        package static let timestampStale = Reason("play.timestamp_stale")
        package static let timestampInFuture = Reason("play.timestamp_future")
        package static let appVerdictMissing = Reason("play.app_verdict_missing")
        package static let appNotRecognized = Reason("play.app_not_recognized")
        package static let certificateDigestMissing = Reason("play.cert_digest_missing")
        package static let certificateDigestMismatch = Reason("play.cert_digest_mismatch")
        package static let deviceVerdictMissing = Reason("play.device_verdict_missing")
        package static let deviceIntegrityInsufficient = Reason("play.device_integrity_insufficient")
        package static let deviceActivityTooHigh = Reason("play.device_activity")
        package static let deviceActivityUnrecognized = Reason("play.device_activity_unrecognized")
        package static let testingResponse = Reason("play.testing_response")
        package static let licensingMissing = Reason("play.licensing_missing")
        package static let notLicensed = Reason("play.not_licensed")
    }

    package let reason: Reason
    package let detail: String

    package init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    package static func == (lhs: PlayIntegrityError, rhs: PlayIntegrityError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
