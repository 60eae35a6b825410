package dev.attestgate.client

import java.io.ByteArrayOutputStream
import java.io.Closeable
import java.io.IOException
import java.io.InputStream

/** One HTTP request: the whole body in memory (the routes' bodies are bounded by `maxRequestBytes`). */
class HttpRequest(
    val method: String,
    val url: String,
    /** Name and value pairs, in order. */
    val headers: List<Pair<String, String>>,
    val body: ByteArray
) {
    /** The first value of [name] (case-insensitive), or null. */
    fun header(name: String): String? = headers.firstOrNull { asciiLower(it.first) == asciiLower(name) }?.second
}

/**
 * An answer whose body is read as a stream. Close it (or read it to the end through [readBody]) to give
 * the connection back; an open event stream holds its connection until closed.
 */
class HttpResponse(
    val status: Int,
    /** Header values keyed by lower-case name; repeated headers joined with ", ". */
    headers: Map<String, String>,
    val body: InputStream,
    private val onClose: Closeable
) : Closeable {
    private val headers: Map<String, String> = headers.mapKeys { asciiLower(it.key) }

    /** The value of [name] (case-insensitive), or null. */
    fun header(name: String): String? = headers[asciiLower(name)]

    /**
     * The whole body, then closes the response.
     * @throws ResponseTooLargeException past [maxBytes] bytes (the connection is closed, not drained).
     */
    @Throws(IOException::class)
    fun readBody(maxBytes: Int): ByteArray = use {
        val out = ByteArrayOutputStream()
        val buffer = ByteArray(8192)
        while (true) {
            val count = body.read(buffer)
            if (count < 0) break
            if (out.size() + count > maxBytes) throw ResponseTooLargeException(maxBytes)
            out.write(buffer, 0, count)
        }
        out.toByteArray()
    }

    override fun close() {
        try {
            body.close()
        } finally {
            onClose.close()
        }
    }
}

/** An answer over the client's bound (`AttestGateConfig.maxResponseBytes`). */
class ResponseTooLargeException(val maxBytes: Int) : IOException("response body over $maxBytes bytes")

/**
 * The request never left: no connection could be made. Unlike any other [IOException] of [HttpTransport.send]
 * (the request may have reached the server, and a metered call been admitted and billed, before its answer
 * was lost), this one is safe to retry.
 */
class NotSentException(cause: IOException) : IOException("not sent: ${cause.message}", cause)

/**
 * The client's one I/O boundary: send a request, get the head and a body stream. [UrlConnectionTransport]
 * is the implementation (`java.net.HttpURLConnection`, on Android and the JVM); tests wrap or script it.
 *
 * Implementations must not resend a request by themselves: each metered call spends its challenge, so a
 * silent resend is refused as a replay (the client decides what to retry, [RetryPolicy]).
 */
interface HttpTransport {
    /**
     * @throws NotSentException when no connection could be made (nothing was sent);
     * @throws IOException when no answer head arrived after the request may have been sent.
     */
    @Throws(IOException::class)
    fun send(request: HttpRequest): HttpResponse
}
