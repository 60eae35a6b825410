package dev.attestgate.client

import java.io.IOException

/**
 * What one call came to, typed by what the app can do about it (docs/api.md section 2, the error table).
 * Every case but [NetworkFailure] is an answer of the server; [quotaRemaining] is `X-Quota-Remaining`
 * where the answer carried it (from the allowance onward).
 */
sealed class Outcome {
    /** Calls left today on the route's feature for this device ID, when the answer said. */
    open val quotaRemaining: Int? get() = null

    /**
     * Every layer admitted the call: the AI provider's answer as it came ([status] is the provider's; a
     * provider's own 4xx is passed on too, with the gate's headers).
     */
    class Served(
        val status: Int,
        val contentType: String?,
        val body: ByteArray,
        override val quotaRemaining: Int?
    ) : Outcome() {
        val text: String get() = String(body, Charsets.UTF_8)
        override fun toString() = "Served(status=$status, bytes=${body.size}, quotaRemaining=$quotaRemaining)"
    }

    /** A streamed route admitted the call: the provider's events as they arrive (close [events] when done). */
    class Streamed(val status: Int, val events: EventStream, override val quotaRemaining: Int?) : Outcome() {
        override fun toString() = "Streamed(status=$status, quotaRemaining=$quotaRemaining)"
    }

    /**
     * `429 quota_exhausted`: today's allowance of this feature is used up. Tell the user when it comes
     * back ([retryAfterSeconds], the next day in the server's `BUDGET_TIMEZONE`); do not retry before.
     */
    data class QuotaExhausted(val retryAfterSeconds: Long?, override val quotaRemaining: Int?) : Outcome()

    /**
     * `503 daily_budget_exhausted`: the service's daily ceiling on unpaid calls is reached for everyone;
     * it resets after [retryAfterSeconds].
     */
    data class DailyBudgetExhausted(val retryAfterSeconds: Long?, override val quotaRemaining: Int?) : Outcome()

    /**
     * `403 attestation_required` twice (once with a fresh challenge and a fresh token, and once more after
     * the remediation hook if it ran): the server does not accept this install's proof. The app cannot
     * fix this by retrying; the server never says which check failed (it logs it). With a debug token
     * ([DebugTokenSource]) after one request ([attempts] 1): the token is unknown, revoked, expired or not made
     * for the route, or the deployment does not take debug tokens.
     */
    data class AttestationRequired(val attempts: Int) : Outcome()

    /**
     * No proof could be made on this device ([cause]: Play Services missing or outdated, Play Integrity
     * unavailable, the provider invalid again after one re-preparation, too many requests) and the route
     * requires one (`403 attestation_required`). Routes in `monitor` mode, or with an `unproven`
     * allowance, serve such calls instead: that is the server's choice.
     */
    class AttestationUnavailable(val cause: IntegrityException) : Outcome() {
        override fun toString() = "AttestationUnavailable(${cause.code}, playErrorCode=${cause.playErrorCode})"
    }

    /**
     * `502`/`504 upstream_unavailable`: the AI provider failed or timed out. Whether the unit came back is
     * the route's release policy ([quotaRemaining] says where the allowance stands).
     */
    data class UpstreamUnavailable(val status: Int, override val quotaRemaining: Int?) : Outcome()

    /**
     * `503 unavailable` (the server's store failed; it fails closed) after the retry policy's attempts, or
     * a platform 5xx that is none of AttestGate's answers.
     */
    data class ServiceUnavailable(val status: Int, val retryAfterSeconds: Long?) : Outcome()

    /** `429 too_many_challenges`: this device ID asked for too many challenges today. */
    data class TooManyChallenges(val retryAfterSeconds: Long?) : Outcome()

    /**
     * A refusal that names a bug on the app's side, never the user's: `invalid_device_id`,
     * `invalid_request`, `request_too_large`, `not_found`, `method_not_allowed` ([code] is the body's
     * `error`, null when the answer had none).
     */
    data class InvalidRequest(val status: Int, val code: String?) : Outcome()

    /**
     * No answer: no connection after the retry policy's attempts, or a connection lost after the request
     * left (a timeout, a broken answer: not repeated by the client, since the call may have been served).
     */
    class NetworkFailure(val cause: IOException) : Outcome() {
        override fun toString() = "NetworkFailure(${cause.javaClass.simpleName}: ${cause.message})"
    }
}
