package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test
import java.util.Base64
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/**
 * An Android install's calls through the real `bootstrap` (local-harness/client_stack.py, routes in
 * src/test/resources/routes.json): `/v1/generate` enforce with an allowance of 3, the tutor routes enforce
 * (one streamed), `/v1/ask` monitor. Each test is its own device ID, so allowances never mix.
 */
@Tag("stack")
class AndroidFlowStackTest {
    private val generate = "/v1/generate"
    private val cards = "{\"text\":\"Mitochondria make ATP. Ribosomes build proteins.\",\"cards\":2}".toByteArray()

    private fun client(
        provider: IntegrityTokenProvider,
        transport: HttpTransport = RecordingTransport(),
        deviceId: String = LocalStack.newDeviceId(),
        remediation: RemediationHook? = null,
        front: String = LocalStack.front
    ) = AttestGateClient(AttestGateConfig(front, deviceId, remediation = remediation), provider, transport)

    @Test
    fun aRegistrationFreeInstallProvesEachCallWithAStandardRequestAndReusesTheNextChallenge() {
        val device = FakeGoogleIntegrity()
        val transport = RecordingTransport()
        val client = client(device, transport)
        client.prepare()

        val first = client.post(generate, cards) as Outcome.Served
        assertEquals(200, first.status)
        assertTrue(first.text.contains("\"cards\""), first.text)
        assertEquals(2, first.quotaRemaining)
        val second = client.post(generate, cards) as Outcome.Served
        assertEquals(1, second.quotaRemaining)

        assertEquals(1, transport.to(AttestGateClient.CHALLENGE_PATH).size, "only the first call asked for a challenge")
        val calls = transport.to(generate)
        assertEquals(listOf(200, 200), calls.map { it.status })
        assertNotEquals(calls[0].request.header(WireHeaders.CHALLENGE), calls[1].request.header(WireHeaders.CHALLENGE))
        for ((index, call) in calls.withIndex()) {
            val document = Base64.getDecoder().decode(call.request.header(WireHeaders.CLIENT_DATA))
            assertEquals(Digests.sha256Hex(document), device.hashes[index], "each token covers its own call's client data")
            assertEquals(device.tokens[index], call.request.header(WireHeaders.PLAY_INTEGRITY_TOKEN))
        }
        assertEquals(1, device.prepares.get(), "prepared once, ahead of time")
    }

    @Test
    fun theAllowanceEndsInQuotaExhaustedWithRetryAfter() {
        val client = client(FakeGoogleIntegrity())
        val remaining = (1..3).map { (client.post(generate, cards) as Outcome.Served).quotaRemaining }
        assertEquals(listOf(2, 1, 0), remaining)
        val over = client.post(generate, cards) as Outcome.QuotaExhausted
        assertTrue(over.retryAfterSeconds!! in 0..86_400, "Retry-After: seconds to the next day, got ${over.retryAfterSeconds}")
        assertEquals(0, over.quotaRemaining)
    }

    @Test
    fun aChallengeTheServerDoesNotKnowIsRecoveredOnceWithAFreshOne() {
        val device = FakeGoogleIntegrity()
        val transport = RecordingTransport()
        val client = client(device, transport)
        // A challenge issued to another device ID (an app that changed its ID and kept its pool): not spendable here.
        val issued = LocalStack.post(LocalStack.front + AttestGateClient.CHALLENGE_PATH, "",
            listOf(WireHeaders.DEVICE_ID to LocalStack.newDeviceId()))
        assertEquals(200, issued.first)
        val stale = (JsonParser().parse(issued.second.toByteArray()) as JsonValue.Object).string("challenge")!!
        client.challenges.offer(stale, System.currentTimeMillis() / 1000 + 300)

        val outcome = client.post(generate, cards)
        assertTrue(outcome is Outcome.Served, "recovered: $outcome")
        val calls = transport.to(generate)
        assertEquals(listOf(403, 200), calls.map { it.status })
        assertEquals(stale, calls[0].request.header(WireHeaders.CHALLENGE))
        assertEquals(0, transport.to(AttestGateClient.CHALLENGE_PATH).size, "the 403's next challenge served the retry")
        assertEquals(2, device.tokens.size, "a fresh token for the fresh challenge")
    }

    @Test
    fun aTamperedInstallIsRefusedTwiceAndNeverLoops() {
        val device = FakeGoogleIntegrity(FakeGoogleIntegrity.Install.TAMPERED)
        val transport = RecordingTransport()
        val outcome = client(device, transport).post(generate, cards)
        assertEquals(2, (outcome as Outcome.AttestationRequired).attempts)
        assertEquals(listOf(403, 403), transport.to(generate).map { it.status })

        var dialogs = 0
        val hook = object : RemediationHook {
            override fun remediate(reason: RemediationHook.Reason, error: IntegrityException?): Boolean {
                dialogs += 1
                assertEquals(RemediationHook.Reason.ATTESTATION_REFUSED, reason)
                return true // the user "fixed" it, but the install is still tampered
            }
        }
        val again = RecordingTransport()
        val afterDialog = client(device, again, remediation = hook).post(generate, cards)
        assertEquals(3, (afterDialog as Outcome.AttestationRequired).attempts)
        assertEquals(1, dialogs, "the hook runs once per call")
        assertEquals(listOf(403, 403, 403), again.to(generate).map { it.status })
    }

    @Test
    fun anInvalidProviderIsPreparedAgainOnceThenTheCallGoesWithoutProof() {
        val device = FakeGoogleIntegrity()
        device.validRequestsPerPreparation = 1
        val client = client(device)
        assertTrue(client.post(generate, cards) is Outcome.Served)
        assertTrue(client.post(generate, cards) is Outcome.Served, "invalid after one token: prepared again, served")
        assertEquals(2, device.prepares.get())

        device.validRequestsPerPreparation = 0
        val requestsBefore = device.requests.get()
        val refused = client.post(generate, cards)
        assertEquals(IntegrityException.Code.PROVIDER_INVALID, (refused as Outcome.AttestationUnavailable).cause.code)
        assertEquals(3, device.prepares.get(), "one more preparation for that call, not a loop")
        assertEquals(requestsBefore + 2, device.requests.get())

        val monitor = client.post("/v1/ask", "{\"question\":\"Why?\"}".toByteArray())
        assertTrue(monitor is Outcome.Served, "a monitor route serves a call without proof: $monitor")
    }

    @Test
    fun aReplayedTokenIsRefused() {
        val device = FakeGoogleIntegrity()
        val transport = RecordingTransport()
        val client = client(device, transport)
        assertTrue(client.post(generate, cards) is Outcome.Served)

        // The exact request again (its challenge is spent).
        val captured = transport.to(generate).single().request
        val replay = UrlConnectionTransport().send(captured)
        assertEquals(403, replay.status)
        assertEquals("{\"error\":\"attestation_required\"}", String(replay.readBody(1024), Charsets.UTF_8))

        // The same token with fresh challenges: its requestHash fits none of them.
        device.replayToken = device.tokens.single()
        val outcome = client.post(generate, cards)
        assertEquals(2, (outcome as Outcome.AttestationRequired).attempts)
    }

    @Test
    fun aStreamedAnswerIsReadEventByEvent() {
        val client = client(FakeGoogleIntegrity())
        val body = "{\"stream\":true,\"question\":\"Why is the sky blue?\",\"events\":6,\"intervalMs\":20}".toByteArray()
        val outcome = client.stream("POST", "/v1/tutor/stream", body) as Outcome.Streamed
        assertEquals(19, outcome.quotaRemaining)
        val events = outcome.events.use { it.readAll() }
        assertEquals("[DONE]", events.last().data)
        val chunks = events.dropLast(1)
        assertTrue(chunks.size >= 6, "${chunks.size} events")
        for (event in chunks) {
            val chunk = JsonParser(maxBytes = 1 shl 16).parse(event.data.toByteArray()) as JsonValue.Object
            assertEquals("chat.completion.chunk", chunk.string("object"))
        }
    }

    @Test
    fun aCutStreamJustEndsAndAProviderErrorArrivesAsAnEvent() {
        val client = client(FakeGoogleIntegrity())
        val cut = client.stream("POST", "/v1/tutor/stream",
            "{\"stream\":true,\"question\":\"Why?\",\"events\":6,\"intervalMs\":10,\"cutAfter\":2}".toByteArray())
        val cutEvents = (cut as Outcome.Streamed).events.use { it.readAll() }
        assertEquals(2, cutEvents.size, "the events before the cut, then the end: ${cutEvents.map { it.data }}")
        assertTrue(cutEvents.none { it.data == "[DONE]" }, "no [DONE]: the app can tell the answer is incomplete")

        val failed = client.stream("POST", "/v1/tutor/stream",
            "{\"stream\":true,\"question\":\"Why?\",\"events\":6,\"intervalMs\":10,\"errorAfter\":2}".toByteArray())
        val failedEvents = (failed as Outcome.Streamed).events.use { it.readAll() }
        assertEquals(3, failedEvents.size)
        assertTrue(failedEvents.last().data.contains("\"error\""), failedEvents.last().data)
    }

    @Test
    fun parallelCallsOfOneInstallEachSpendTheirOwnChallenge() {
        val device = FakeGoogleIntegrity()
        val transport = RecordingTransport()
        val client = client(device, transport)
        val body = "{\"question\":\"What is ATP?\"}".toByteArray()
        assertTrue(client.post("/v1/tutor/deck-1/card-0", body) is Outcome.Served)
        assertEquals(1, client.challenges.size, "one next challenge in the pool for eight calls to compete for")
        val executor = Executors.newFixedThreadPool(8)
        val outcomes = (1..8).map { card -> executor.submit(Callable { client.post("/v1/tutor/deck-1/card-$card", body) }) }
            .map { it.get(60, TimeUnit.SECONDS) }
        executor.shutdown()
        assertTrue(outcomes.all { it is Outcome.Served }, outcomes.toString())
        assertEquals((11..18).toSet(), outcomes.map { it.quotaRemaining }.toSet())
        val calls = transport.to("/v1/tutor/")
        assertEquals(9, calls.size, "no refusal, so no recovery")
        assertEquals(9, calls.map { it.request.header(WireHeaders.CHALLENGE) }.toSet().size)
        assertEquals(8, transport.to(AttestGateClient.CHALLENGE_PATH).size, "the first call's and seven of the burst")
    }

    @Test
    fun aProviderFailureIsUpstreamUnavailableAndTheNextCallIsServed() {
        val client = client(FakeGoogleIntegrity())
        LocalStack.failUpstream(503, 1)
        val failed = client.post(generate, cards) as Outcome.UpstreamUnavailable
        assertEquals(502, failed.status)
        assertEquals(3, failed.quotaRemaining, "a provider that never billed the call gives the unit back")
        assertEquals(2, (client.post(generate, cards) as Outcome.Served).quotaRemaining)
    }

    @Test
    fun aBodyOverTheRoutesBoundIsAnInvalidRequest() {
        val tooLarge = ByteArray(5000) { 'x'.toByte() }
        val outcome = client(FakeGoogleIntegrity()).post(generate, tooLarge)
        assertEquals("request_too_large", (outcome as Outcome.InvalidRequest).code)
        assertEquals(413, outcome.status)
    }

    @Test
    fun theDailyCeilingEndsInDailyBudgetExhaustedForEveryone() {
        // The ceiling front has AI_DAILY_CALL_CEILING=3 and a table of its own.
        val first = client(FakeGoogleIntegrity(), front = LocalStack.ceilingFront)
        val body = "{\"question\":\"Why?\"}".toByteArray()
        repeat(3) { assertTrue(first.post("/v1/tutor/d/c", body) is Outcome.Served) }
        val other = client(FakeGoogleIntegrity(), front = LocalStack.ceilingFront)
        val refused = other.post("/v1/tutor/d/c", body) as Outcome.DailyBudgetExhausted
        assertTrue(refused.retryAfterSeconds!! in 0..86_400, "Retry-After ${refused.retryAfterSeconds}")
    }
}
