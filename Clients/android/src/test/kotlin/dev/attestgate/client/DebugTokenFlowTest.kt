package dev.attestgate.client

import dev.attestgate.client.ScriptedTransport.Companion.CHALLENGE_B
import dev.attestgate.client.ScriptedTransport.Companion.challengeAnswer
import dev.attestgate.client.ScriptedTransport.Companion.next
import dev.attestgate.client.ScriptedTransport.Companion.refusal
import dev.attestgate.client.ScriptedTransport.Companion.response
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.Random
import java.util.concurrent.atomic.AtomicInteger

/** A call whose [DebugTokenSource] has a token, against scripted answers: the token alone proves it. */
class DebugTokenFlowTest {
    private val deviceId = "7d444840-9dc0-41d1-b245-5ffdce74fad2"
    private val path = "/v1/generate"
    private val body = "{\"text\":\"ATP.\"}".toByteArray()
    private val token = DebugToken("X-Test-Debug-Token", "agdt_" + "A".repeat(43))

    /** Counts how often the client asked. */
    private class FixedSource(private val token: DebugToken?) : DebugTokenSource {
        val asked = AtomicInteger()
        override fun token(): DebugToken? {
            asked.incrementAndGet()
            return token
        }
    }

    /** A provider the test fails on: a call with a debug token never asks Play. */
    private class UnusedProvider : IntegrityTokenProvider {
        override fun prepare() = throw AssertionError("prepared with a debug token")
        override fun request(requestHash: String): String = throw AssertionError("asked for a token with a debug token")
    }

    private fun client(transport: HttpTransport, source: DebugTokenSource, remediation: RemediationHook? = null) =
        AttestGateClient(
            AttestGateConfig("http://127.0.0.1:9", deviceId, remediation = remediation, debugTokens = source),
            UnusedProvider(), transport, sleeper = RecordingSleeper(), random = Random(1)
        )

    @Test
    fun aCallWithADebugTokenCarriesTheDeviceIdAndTheTokenAndNoChallengeNorIntegrityToken() {
        val source = FixedSource(token)
        val transport = ScriptedTransport { _, _ -> response(200, "{}", next(CHALLENGE_B) + (WireHeaders.QUOTA_REMAINING to "2")) }
        val outcome = client(transport, source).post(path, body) as Outcome.Served
        assertEquals(2, outcome.quotaRemaining)
        assertEquals(0, transport.to(AttestGateClient.CHALLENGE_PATH).size, "no challenge is fetched")
        val sent = transport.requests.single()
        assertEquals(deviceId, sent.header(WireHeaders.DEVICE_ID))
        assertEquals(token.value, sent.header(token.header))
        for (name in listOf(WireHeaders.CHALLENGE, WireHeaders.PLAY_INTEGRITY_TOKEN, WireHeaders.CLIENT_DATA)) {
            assertNull(sent.header(name), name)
        }
        assertEquals(1, source.asked.get(), "the source is asked once per call")
    }

    @Test
    fun aRefusedDebugTokenIsFinalAfterOneRequest() {
        var dialogs = 0
        val hook = object : RemediationHook {
            override fun remediate(reason: RemediationHook.Reason, error: IntegrityException?): Boolean {
                dialogs += 1
                return true
            }
        }
        val transport = ScriptedTransport { request, _ ->
            if (request.url.endsWith(AttestGateClient.CHALLENGE_PATH)) challengeAnswer()
            else refusal(403, "attestation_required", next(CHALLENGE_B))
        }
        val outcome = client(transport, FixedSource(token), hook).post(path, body)
        assertEquals(1, (outcome as Outcome.AttestationRequired).attempts)
        assertEquals(1, transport.requests.size, "no recovery, no challenge: one request")
        assertEquals(0, dialogs, "no remediation dialog: Play cannot fix a debug token")
    }

    @Test
    fun whatSpentNothingIsRetriedWithTheSameToken() {
        val transport = ScriptedTransport { _, n -> if (n < 2) refusal(503, "unavailable") else response(200, "{}") }
        assertTrue(client(transport, FixedSource(token)).post(path, body) is Outcome.Served)
        assertEquals(3, transport.requests.size)
        assertTrue(transport.requests.all { it.header(token.header) == token.value && it.header(WireHeaders.CHALLENGE) == null })
    }

    @Test
    fun aSourceWithoutATokenLeavesTheCallToPlayIntegrity() {
        val transport = ScriptedTransport { request, _ ->
            if (request.url.endsWith(AttestGateClient.CHALLENGE_PATH)) challengeAnswer() else response(200, "{}")
        }
        val provider = CountingProvider()
        val client = AttestGateClient(
            AttestGateConfig("http://127.0.0.1:9", deviceId, debugTokens = FixedSource(null)), provider, transport
        )
        assertTrue(client.post(path, body) is Outcome.Served)
        val sent = transport.to(path).single()
        assertEquals("token-1", sent.header(WireHeaders.PLAY_INTEGRITY_TOKEN))
        assertNull(sent.header(token.header))
        assertEquals(DebugTokenSource.NONE, AttestGateConfig("http://127.0.0.1:9", deviceId).debugTokens, "none by default")
    }

    @Test
    fun aDebugTokenNeverShowsInItsOwnTextNorInAnOutcomes() {
        assertFalse(token.toString().contains(token.value), token.toString())
        val refused = ScriptedTransport { _, _ -> refusal(403, "attestation_required") }
        val outcome = client(refused, FixedSource(token)).post(path, body)
        assertFalse(outcome.toString().contains(token.value), outcome.toString())
    }
}
