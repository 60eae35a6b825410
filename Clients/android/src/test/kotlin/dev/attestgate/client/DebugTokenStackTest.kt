package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test

/**
 * Debug tokens through the real `bootstrap` (local-harness/client_stack.py with `--debug-tokens`, so the
 * fronts have `DEBUG_TOKENS=on`): each test makes its own token with the shipped CLI (`attestgate
 * debug-token create`) and reads it through the debug build's [EnvironmentDebugTokenSource], as a CI job
 * whose secret is `ATTESTGATE_DEBUG_TOKEN` would. `/v1/generate` is enforce, 3 calls a day.
 */
@Tag("stack")
class DebugTokenStackTest {
    private val generate = "/v1/generate"
    private val cards = "{\"text\":\"Mitochondria make ATP.\",\"cards\":1}".toByteArray()

    /** Play is never asked when a debug token proves the call. */
    private class NoPlay : IntegrityTokenProvider {
        override fun prepare() = throw AssertionError("Play Integrity prepared with a debug token")
        override fun request(requestHash: String): String = throw AssertionError("Play Integrity asked with a debug token")
    }

    private fun create(name: String, vararg options: String): String {
        val (status, out, audit) = LocalStack.attestgate("debug-token", "create", "--name", name, "--expires", "1d", *options)
        assertEquals(0, status, "debug-token create: $out $audit")
        val token = (JsonParser(maxBytes = 1 shl 16).parse(out.toByteArray()) as JsonValue.Object).string("token")!!
        assertFalse(audit.contains(token), "the audit line never carries the token")
        return token
    }

    private fun client(token: String, transport: HttpTransport = RecordingTransport(), deviceId: String = LocalStack.newDeviceId()) =
        AttestGateClient(
            AttestGateConfig(LocalStack.front, deviceId,
                debugTokens = EnvironmentDebugTokenSource { name -> if (name == "ATTESTGATE_DEBUG_TOKEN") token else null }),
            NoPlay(), transport
        )

    @Test
    fun aDebugTokenAloneIsServedOnAnEnforceRoute() {
        val transport = RecordingTransport()
        val outcome = client(create("android-served"), transport).post(generate, cards)
        assertEquals(2, (outcome as Outcome.Served).quotaRemaining, "$outcome")
        assertTrue(outcome.text.contains("\"cards\""), outcome.text)
        assertEquals(0, transport.to(AttestGateClient.CHALLENGE_PATH).size, "no challenge asked for")
        val sent = transport.to(generate).single().request
        for (name in listOf(WireHeaders.CHALLENGE, WireHeaders.PLAY_INTEGRITY_TOKEN, WireHeaders.CLIENT_DATA)) {
            assertNull(sent.header(name), name)
        }
    }

    @Test
    fun theTokensAllowanceIsOneWhateverTheDeviceId() {
        val token = create("android-shared", "--routes", "generation")
        val remaining = (1..3).map { (client(token).post(generate, cards) as Outcome.Served).quotaRemaining }
        assertEquals(listOf(2, 1, 0), remaining, "three device IDs, one allowance")
        val fourth = client(token).post(generate, cards)
        assertEquals(0, (fourth as Outcome.QuotaExhausted).quotaRemaining)

        val install = AttestGateClient(AttestGateConfig(LocalStack.front, LocalStack.newDeviceId()), FakeGoogleIntegrity())
        assertEquals(2, (install.post(generate, cards) as Outcome.Served).quotaRemaining, "a proved install has its own")
    }

    @Test
    fun aRevokedUnknownOrOtherRoutesTokenIsRefusedAfterOneRequest() {
        val token = create("android-revoked")
        assertTrue(client(token).post(generate, cards) is Outcome.Served)
        val (status, out, _) = LocalStack.attestgate("debug-token", "revoke", "--name", "android-revoked")
        assertEquals(0, status, out)

        val bytes = ByteArray(32).also { java.security.SecureRandom().nextBytes(it) }
        val unknown = "agdt_" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes) // shaped as one
        val otherRoute = create("android-tutor-only", "--routes", "tutor")
        for (refused in listOf(token, unknown, otherRoute)) {
            val transport = RecordingTransport()
            val outcome = client(refused, transport).post(generate, cards)
            assertEquals(1, (outcome as Outcome.AttestationRequired).attempts)
            assertEquals(listOf(403), transport.exchanges.map { it.status }, "one request, no challenge, no loop")
        }
    }

    @Test
    fun theTokenIsInNoLogLine() {
        val token = create("android-logs")
        val served = client(token).post(generate, cards)
        assertTrue(served is Outcome.Served)
        assertFalse(served.toString().contains(token))
        val logs = LocalStack.logs()
        // The decision line names the token by its name (`"device":"debug:android-logs"`), never by its text.
        assertTrue(logs.contains("debug:android-logs"), "the logs read include the debug token's call")
        assertFalse(logs.contains(token), "no log line carries the token")
        assertFalse(logs.contains(token.substring(5, 20)), "nor a piece of it")
    }
}
