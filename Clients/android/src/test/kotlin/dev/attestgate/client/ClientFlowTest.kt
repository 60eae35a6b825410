package dev.attestgate.client

import dev.attestgate.client.ScriptedTransport.Companion.CHALLENGE_A
import dev.attestgate.client.ScriptedTransport.Companion.CHALLENGE_B
import dev.attestgate.client.ScriptedTransport.Companion.broken
import dev.attestgate.client.ScriptedTransport.Companion.challengeAnswer
import dev.attestgate.client.ScriptedTransport.Companion.next
import dev.attestgate.client.ScriptedTransport.Companion.refusal
import dev.attestgate.client.ScriptedTransport.Companion.response
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.Base64
import java.util.Random

/** The call loop against scripted answers: headers, each documented answer's outcome, recovery and retry bounds. */
class ClientFlowTest {
    private val deviceId = "7D444840-9DC0-41D1-B245-5FFDCE74FAD2"
    private val path = "/v1/generate"
    private val body = "{\"text\":\"ATP.\"}".toByteArray()

    private fun client(
        transport: HttpTransport,
        provider: IntegrityTokenProvider = CountingProvider(),
        remediation: RemediationHook? = null,
        sleeper: Sleeper = RecordingSleeper(),
        retry: RetryPolicy = RetryPolicy()
    ) = AttestGateClient(
        AttestGateConfig("http://127.0.0.1:9", deviceId, retryPolicy = retry, remediation = remediation),
        provider, transport, sleeper = sleeper, random = Random(1)
    )

    /** The challenge endpoint answers CHALLENGE_A; the metered route answers [metered] for its n-th request. */
    private fun script(metered: (HttpRequest, Int) -> HttpResponse): ScriptedTransport {
        var calls = 0
        return ScriptedTransport { request, _ ->
            if (request.url.endsWith(AttestGateClient.CHALLENGE_PATH)) challengeAnswer() else metered(request, calls++)
        }
    }

    @Test
    fun aServedCallCarriesTheProofOfExactlyThisRequestAndKeepsTheNextChallenge() {
        val provider = CountingProvider()
        val transport = script { _, _ -> response(200, "{\"cards\":[]}", next(CHALLENGE_B) + (WireHeaders.QUOTA_REMAINING to "3")) }
        val client = client(transport, provider)
        val outcome = client.post(path, body) as Outcome.Served
        assertEquals(200, outcome.status)
        assertEquals(3, outcome.quotaRemaining)
        assertEquals("{\"cards\":[]}", outcome.text)
        val sent = transport.to(path).single()
        assertEquals(asciiLower(deviceId), sent.header(WireHeaders.DEVICE_ID), "the device ID goes in lower case")
        assertEquals(CHALLENGE_A, sent.header(WireHeaders.CHALLENGE))
        assertEquals("token-1", sent.header(WireHeaders.PLAY_INTEGRITY_TOKEN))
        val document = Base64.getDecoder().decode(sent.header(WireHeaders.CLIENT_DATA))
        assertEquals(ClientData.of(CHALLENGE_A, "POST", path, body).requestHash, provider.hashes.single())
        assertEquals(Digests.sha256Hex(document), provider.hashes.single(), "requestHash = hex(SHA-256(the bytes sent))")
        assertEquals(CHALLENGE_B, client.challenges.take(0)?.value, "the answer's next challenge is kept")

        client.challenges.offer(CHALLENGE_B, System.currentTimeMillis() / 1000 + 300)
        client.post(path, body)
        assertEquals(1, transport.to(AttestGateClient.CHALLENGE_PATH).size, "the second call used the next challenge")
        assertEquals(CHALLENGE_B, transport.to(path)[1].header(WireHeaders.CHALLENGE))
        assertEquals(1, provider.prepares.get())
    }

    @Test
    fun eachDocumentedRefusalBecomesItsOutcome() {
        fun outcome(answer: HttpResponse) = client(script { _, _ -> answer }, retry = RetryPolicy.NONE).post(path, body)
        val quota = outcome(refusal(429, "quota_exhausted", mapOf(WireHeaders.RETRY_AFTER to "3600", WireHeaders.QUOTA_REMAINING to "0")))
        assertEquals(3600L, (quota as Outcome.QuotaExhausted).retryAfterSeconds)
        assertEquals(0, quota.quotaRemaining)
        val budget = outcome(refusal(503, "daily_budget_exhausted", mapOf(WireHeaders.RETRY_AFTER to "120")))
        assertEquals(120L, (budget as Outcome.DailyBudgetExhausted).retryAfterSeconds)
        val upstream = outcome(refusal(502, "upstream_unavailable", mapOf(WireHeaders.QUOTA_REMAINING to "4")))
        assertEquals(4, (upstream as Outcome.UpstreamUnavailable).quotaRemaining)
        assertEquals(504, (outcome(refusal(504, "upstream_unavailable")) as Outcome.UpstreamUnavailable).status)
        assertEquals("request_too_large", (outcome(refusal(413, "request_too_large")) as Outcome.InvalidRequest).code)
        assertEquals("invalid_request", (outcome(refusal(400, "invalid_request")) as Outcome.InvalidRequest).code)
        assertEquals(503, (outcome(refusal(503, "unavailable")) as Outcome.ServiceUnavailable).status)
        val platform = outcome(response(500, "{\"message\":\"Internal Server Error\"}"))
        assertEquals(500, (platform as Outcome.ServiceUnavailable).status)
        val providers = outcome(response(400, "{\"error\":{\"message\":\"bad prompt\"}}", mapOf(WireHeaders.QUOTA_REMAINING to "2")))
        assertEquals(400, (providers as Outcome.Served).status, "the provider's own 4xx passes as served")
    }

    @Test
    fun aRefusedProofIsRecoveredOnceWithAFreshChallengeThenGivenUp() {
        val provider = CountingProvider()
        val transport = script { _, n -> refusal(403, "attestation_required", next(if (n == 0) CHALLENGE_B else CHALLENGE_A)) }
        val outcome = client(transport, provider).post(path, body)
        assertEquals(2, (outcome as Outcome.AttestationRequired).attempts)
        val metered = transport.to(path)
        assertEquals(2, metered.size, "once more, never a loop")
        assertEquals(CHALLENGE_B, metered[1].header(WireHeaders.CHALLENGE), "the retry used the refusal's next challenge")
        assertEquals(2, provider.hashes.size, "and a fresh token")
    }

    @Test
    fun aRefusalFollowedByAServedAnswerIsServed() {
        val transport = script { _, n -> if (n == 0) refusal(403, "attestation_required", next(CHALLENGE_B)) else response(200, "{}") }
        assertTrue(client(transport).post(path, body) is Outcome.Served)
        assertEquals(2, transport.to(path).size)
    }

    @Test
    fun theRemediationHookRunsOnceAndItsSuccessBuysExactlyOneMoreAttempt() {
        val provider = CountingProvider()
        val reasons = ArrayList<RemediationHook.Reason>()
        val hook = object : RemediationHook {
            override fun remediate(reason: RemediationHook.Reason, error: IntegrityException?): Boolean {
                reasons.add(reason)
                return true
            }
        }
        val transport = script { _, _ -> refusal(403, "attestation_required", next(CHALLENGE_B)) }
        val outcome = client(transport, provider, remediation = hook).post(path, body)
        assertEquals(3, (outcome as Outcome.AttestationRequired).attempts)
        assertEquals(listOf(RemediationHook.Reason.ATTESTATION_REFUSED), reasons)
        assertEquals(3, transport.to(path).size)
        assertEquals(2, provider.prepares.get(), "the provider is prepared again after the dialog")
    }

    @Test
    fun withoutATokenTheCallGoesWithoutProofAndTheServerDecides() {
        val unavailable = IntegrityException(IntegrityException.Code.UNAVAILABLE, "API not available", playErrorCode = -1)
        val refusing = script { _, _ -> refusal(403, "attestation_required", next(CHALLENGE_B)) }
        val outcome = client(refusing, CountingProvider(unavailable)).post(path, body)
        assertEquals(IntegrityException.Code.UNAVAILABLE, (outcome as Outcome.AttestationUnavailable).cause.code)
        val sent = refusing.to(path).single()
        assertNull(sent.header(WireHeaders.PLAY_INTEGRITY_TOKEN))
        assertNull(sent.header(WireHeaders.CHALLENGE), "an unproved call does not spend its challenge")

        val monitor = script { _, _ -> response(200, "{}") }
        assertTrue(client(monitor, CountingProvider(unavailable)).post(path, body) is Outcome.Served)
    }

    @Test
    fun failuresThatSpentNothingAreRetriedWithinThePolicy() {
        val sleeper = RecordingSleeper()
        val flaky = script { _, n -> if (n < 2) refusal(503, "unavailable") else response(200, "{}") }
        assertTrue(client(flaky, sleeper = sleeper).post(path, body) is Outcome.Served)
        assertEquals(2, sleeper.waits.size)

        val down = ScriptedTransport { _, _ -> broken() }
        val outcome = client(down, retry = RetryPolicy(maxAttempts = 3)).post(path, body)
        assertTrue(outcome is Outcome.NetworkFailure)
        assertEquals(3, down.requests.size)

        val lostAnswer = script { _, _ -> ScriptedTransport.lost() }
        assertTrue(client(lostAnswer).post(path, body) is Outcome.NetworkFailure)
        assertEquals(1, lostAnswer.to(path).size, "an answer lost after the request left is not repeated")

        val refused = ScriptedTransport { request, _ ->
            if (request.url.endsWith(AttestGateClient.CHALLENGE_PATH)) challengeAnswer() else broken()
        }
        assertTrue(client(refused).post(path, body) is Outcome.NetworkFailure)
        assertEquals(3, refused.to(path).size, "a request that never left is retried")
        assertEquals(1, refused.to(AttestGateClient.CHALLENGE_PATH).size, "with its unspent challenge")

        val upstream = script { _, _ -> refusal(502, "upstream_unavailable") }
        assertTrue(client(upstream).post(path, body) is Outcome.UpstreamUnavailable)
        assertEquals(1, upstream.to(path).size, "a provider failure may have been billed: not repeated")

        val transient = IntegrityException(IntegrityException.Code.TRANSIENT, "network", playErrorCode = -3)
        val served = script { _, _ -> response(200, "{}") }
        val noToken = client(served, CountingProvider(transient)).post(path, body)
        assertTrue(noToken is Outcome.AttestationUnavailable)
        assertEquals(0, served.to(path).size, "a transient Play error is retried, then given up without sending")
        assertEquals(1, served.to(AttestGateClient.CHALLENGE_PATH).size, "the unspent challenge went back to the pool")
    }

    @Test
    fun theChallengeEndpointsRefusalsAreOutcomesToo() {
        val tooMany = ScriptedTransport { _, _ -> refusal(429, "too_many_challenges", mapOf(WireHeaders.RETRY_AFTER to "50")) }
        assertEquals(50L, (client(tooMany).post(path, body) as Outcome.TooManyChallenges).retryAfterSeconds)
        val invalid = ScriptedTransport { _, _ -> refusal(400, "invalid_device_id") }
        assertEquals("invalid_device_id", (client(invalid).post(path, body) as Outcome.InvalidRequest).code)
        val garbage = ScriptedTransport { _, _ -> response(200, "{\"challenge\":\"short\",\"expiresAt\":1}") }
        assertTrue(client(garbage).post(path, body) is Outcome.NetworkFailure)
    }

    @Test
    fun aStreamedAnswerIsReadAsEvents() {
        val transport = script { _, _ ->
            HttpResponse(200, mapOf("Content-Type" to "text/event-stream", WireHeaders.QUOTA_REMAINING to "8"),
                java.io.ByteArrayInputStream("data: one\n\ndata: two\n\ndata: [DONE]\n\n".toByteArray()), java.io.Closeable { })
        }
        val outcome = client(transport).stream("POST", "/v1/tutor/stream", body) as Outcome.Streamed
        assertEquals(8, outcome.quotaRemaining)
        assertEquals(listOf("one", "two", "[DONE]"), outcome.events.readAll().map { it.data })
        assertEquals("text/event-stream", transport.to("/v1/tutor/stream").single().header("Accept"))
    }
}
