package dev.attestgate.client

import java.io.IOException
import java.util.Base64

/**
 * Reads the server's answers (docs/api.md section 2, the error table): the challenge endpoint's, and a
 * metered route's, into the call loop's [Step]s. A refusal is recognised by its status and its
 * `{"error": code}` body together; any other answer of a metered route is the provider's.
 */
internal class Answers(private val config: AttestGateConfig) {
    private val parser = JsonParser(maxBytes = 4096, maxDepth = 4)

    fun challenge(response: HttpResponse): Fetched {
        val body = try {
            response.readBody(4096)
        } catch (error: IOException) {
            return Fetched.Failed(Step.Retry(Outcome.NetworkFailure(error), null))
        }
        val retryAfter = seconds(response.header(WireHeaders.RETRY_AFTER))
        val status = response.status
        val code = errorCode(body)
        return when {
            status == 200 -> {
                val answer = try {
                    parser.parse(body) as? JsonValue.Object
                } catch (error: JsonException) {
                    null
                }
                val value = answer?.string("challenge")
                val expiresAt = answer?.long("expiresAt")
                if (value != null && isChallenge(value) && expiresAt != null) {
                    Fetched.Issued(Challenge(value, expiresAt))
                } else {
                    Fetched.Failed(Step.Done(Outcome.NetworkFailure(IOException("a challenge answer that is not one"))))
                }
            }
            status == 429 && code == "too_many_challenges" -> Fetched.Failed(Step.Done(Outcome.TooManyChallenges(retryAfter)))
            // Our store failed (503 unavailable) or the platform did: issuing a challenge is safe to repeat.
            status >= 500 -> Fetched.Failed(Step.Retry(Outcome.ServiceUnavailable(status, retryAfter), retryAfter))
            else -> Fetched.Failed(Step.Done(Outcome.InvalidRequest(status, code)))
        }
    }

    fun metered(response: HttpResponse, streamed: Boolean, proofSent: Boolean, integrityError: IntegrityException?): Step {
        val status = response.status
        val quota = response.header(WireHeaders.QUOTA_REMAINING)?.let { text ->
            if (text.isNotEmpty() && text.length <= 9 && text.all { it in '0'..'9' }) text.toInt() else null
        }
        if (streamed && status in 200..299 && isEventStream(response.header("Content-Type"))) {
            val parser = EventStreamParser(config.maxEventLineBytes, config.maxEventBytes)
            return Step.Done(Outcome.Streamed(status, EventStream(response, parser), quota))
        }
        val body = try {
            response.readBody(config.maxResponseBytes)
        } catch (error: IOException) {
            // The head arrived, so the call was spent and maybe billed: never repeated by itself.
            return Step.Done(Outcome.NetworkFailure(error))
        }
        val retryAfter = seconds(response.header(WireHeaders.RETRY_AFTER))
        val code = if (status >= 400) errorCode(body) else null
        return when {
            status == 403 && code == "attestation_required" -> Step.Refused(proofSent, integrityError)
            status == 429 && code == "quota_exhausted" -> Step.Done(Outcome.QuotaExhausted(retryAfter, quota))
            status == 503 && code == "daily_budget_exhausted" -> Step.Done(Outcome.DailyBudgetExhausted(retryAfter, quota))
            // Fail closed before the provider: nothing was spent (docs/api.md section 7).
            status == 503 && code == "unavailable" -> Step.Retry(Outcome.ServiceUnavailable(status, retryAfter), retryAfter)
            (status == 502 || status == 504) && code == "upstream_unavailable" ->
                Step.Done(Outcome.UpstreamUnavailable(status, quota))
            status in INVALID_STATUSES && code in INVALID_CODES -> Step.Done(Outcome.InvalidRequest(status, code))
            // Not one of AttestGate's answers: the platform in front failed (a crashed or timed-out
            // invocation). The call may have reached the provider, so it is not repeated.
            status >= 500 -> Step.Done(Outcome.ServiceUnavailable(status, retryAfter))
            else -> Step.Done(Outcome.Served(status, response.header("Content-Type"), body, quota))
        }
    }

    /** The `error` of a `{"error": code}` body, or null for any other body. */
    private fun errorCode(body: ByteArray): String? {
        if (body.isEmpty() || body.size > 1024) return null
        val value = try {
            parser.parse(body)
        } catch (error: JsonException) {
            return null
        }
        val members = (value as? JsonValue.Object)?.members ?: return null
        return if (members.size == 1) (members["error"] as? JsonValue.Str)?.value else null
    }

    companion object {
        private val INVALID_STATUSES = setOf(400, 404, 405, 413)
        private val INVALID_CODES = setOf(
            "invalid_device_id", "invalid_request", "request_too_large", "not_found", "method_not_allowed"
        )

        /** A challenge as the server writes them: standard base64 of 32 bytes. */
        fun isChallenge(value: String): Boolean =
            value.length == 44 && try {
                Base64.getDecoder().decode(value).size == 32
            } catch (error: IllegalArgumentException) {
                false
            }

        /** A header of decimal seconds (`Retry-After`, the next challenge's expiry), or null. */
        fun seconds(text: String?): Long? =
            if (text != null && text.isNotEmpty() && text.length <= 12 && text.all { it in '0'..'9' }) text.toLong() else null

        private fun isEventStream(contentType: String?): Boolean =
            contentType != null && asciiLower(contentType).trim().startsWith("text/event-stream")
    }
}
