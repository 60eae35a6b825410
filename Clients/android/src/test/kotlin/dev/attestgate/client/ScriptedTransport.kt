package dev.attestgate.client

import java.io.ByteArrayInputStream
import java.io.Closeable
import java.io.IOException
import java.util.Collections

/** A transport that answers from a script and records every request: the client's logic without a server. */
class ScriptedTransport(private val answer: (HttpRequest, Int) -> HttpResponse) : HttpTransport {
    val requests: MutableList<HttpRequest> = Collections.synchronizedList(ArrayList<HttpRequest>())

    override fun send(request: HttpRequest): HttpResponse {
        requests.add(request)
        return answer(request, requests.size - 1)
    }

    /** The requests to [path] (the metered ones, or the challenge endpoint's). */
    fun to(path: String): List<HttpRequest> = synchronized(requests) { requests.filter { it.url.endsWith(path) } }

    companion object {
        const val CHALLENGE_A = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
        const val CHALLENGE_B = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

        fun response(status: Int, body: String, headers: Map<String, String> = emptyMap()): HttpResponse =
            HttpResponse(status, headers + ("Content-Type" to "application/json"), ByteArrayInputStream(body.toByteArray()),
                Closeable { })

        fun challengeAnswer(challenge: String = CHALLENGE_A): HttpResponse =
            response(200, "{\"challenge\":\"$challenge\",\"expiresAt\":${System.currentTimeMillis() / 1000 + 300}}")

        fun refusal(status: Int, code: String, headers: Map<String, String> = emptyMap()): HttpResponse =
            response(status, "{\"error\":\"$code\"}", headers)

        /** The next-challenge headers of a gated answer. */
        fun next(challenge: String): Map<String, String> = mapOf(
            WireHeaders.NEXT_CHALLENGE to challenge,
            WireHeaders.NEXT_CHALLENGE_EXPIRES to (System.currentTimeMillis() / 1000 + 300).toString()
        )

        fun broken(): Nothing = throw NotSentException(IOException("connection refused (scripted)"))

        fun lost(): Nothing = throw IOException("read timed out (scripted)")
    }
}

/** A provider that makes "token-<n>" tokens and records the hashes it was asked for. */
class CountingProvider(private val failWith: IntegrityException? = null) : IntegrityTokenProvider {
    val prepares = java.util.concurrent.atomic.AtomicInteger()
    val hashes: MutableList<String> = Collections.synchronizedList(ArrayList<String>())

    override fun prepare() {
        prepares.incrementAndGet()
    }

    override fun request(requestHash: String): String {
        failWith?.let { throw it }
        hashes.add(requestHash)
        return "token-${hashes.size}"
    }
}

/** Records the waits instead of sleeping. */
class RecordingSleeper : Sleeper {
    val waits: MutableList<Long> = Collections.synchronizedList(ArrayList<Long>())
    override fun sleep(millis: Long) {
        waits.add(millis)
    }
}
