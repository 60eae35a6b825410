package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Tag
import org.junit.jupiter.api.Test

/**
 * The known-answer vector ([KnownAnswer]) through the real server: with the vector's challenge planted in
 * the table for the vector's device ID, a verdict that carries the constant [KnownAnswer.REQUEST_HASH]
 * (not a hash this library computed) is accepted for the library's request, so the server's own hash of
 * the bytes it received is that constant. The control: one hex digit off is refused.
 */
@Tag("stack")
class KnownAnswerServerTest {
    @Test
    fun theServerComputesTheKnownRequestHashForTheLibrarysRequest() {
        val expires = System.currentTimeMillis() / 1000 + 3600
        LocalStack.plantChallenge(KnownAnswer.DEVICE_ID, KnownAnswer.CHALLENGE, expires)
        val oracle = object : IntegrityTokenProvider {
            override fun prepare() {}
            override fun request(requestHash: String): String {
                val token = LocalStack.randomToken("kat.")
                FakeGoogleIntegrity.register(token, KnownAnswer.REQUEST_HASH, FakeGoogleIntegrity.Install.GENUINE)
                return token
            }
        }
        val transport = RecordingTransport()
        val client = AttestGateClient(AttestGateConfig(LocalStack.front, KnownAnswer.DEVICE_ID, retryPolicy = RetryPolicy.NONE),
            oracle, transport)
        client.challenges.offer(KnownAnswer.CHALLENGE, expires)
        val outcome = client.post(KnownAnswer.PATH, KnownAnswer.BODY)
        assertTrue(outcome is Outcome.Served, "the server refused the known answer: $outcome")
        val sent = transport.to(KnownAnswer.PATH).first().request
        assertEquals(KnownAnswer.CHALLENGE, sent.header(WireHeaders.CHALLENGE))
        assertEquals(KnownAnswer.HEADER, sent.header(WireHeaders.CLIENT_DATA))
    }

    @Test
    fun aHashOneDigitOffIsRefused() {
        val device = LocalStack.newDeviceId()
        val challenge = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
        LocalStack.plantChallenge(device, challenge, System.currentTimeMillis() / 1000 + 3600)
        val data = ClientData.of(challenge, "POST", KnownAnswer.PATH, KnownAnswer.BODY)
        val wrong = data.requestHash.substring(0, 63) + (if (data.requestHash.endsWith("0")) "1" else "0")
        val token = LocalStack.randomToken("kat.")
        FakeGoogleIntegrity.register(token, wrong, FakeGoogleIntegrity.Install.GENUINE)
        val response = UrlConnectionTransport().send(HttpRequest("POST", LocalStack.front + KnownAnswer.PATH, listOf(
            WireHeaders.DEVICE_ID to device, WireHeaders.CHALLENGE to challenge, WireHeaders.PLAY_INTEGRITY_TOKEN to token,
            WireHeaders.CLIENT_DATA to data.header, "Content-Type" to "application/json"), KnownAnswer.BODY))
        assertEquals(403, response.status)
        response.close()
    }
}
