package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import java.net.ServerSocket

/** The real transport tells "never sent" apart, which is what makes a retry safe. */
class UrlConnectionTransportTest {
    @Test
    fun aRefusedConnectionIsNotSent() {
        val port = ServerSocket(0).use { it.localPort } // bound, then closed: nothing listens there now
        assertThrows(NotSentException::class.java) {
            UrlConnectionTransport(connectTimeoutMillis = 2_000).send(
                HttpRequest("POST", "http://127.0.0.1:$port/v1/generate", emptyList(), "{}".toByteArray())
            )
        }
    }
}
