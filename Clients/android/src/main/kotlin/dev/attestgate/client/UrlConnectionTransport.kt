package dev.attestgate.client

import java.io.ByteArrayInputStream
import java.io.Closeable
import java.io.IOException
import java.net.HttpURLConnection
import java.net.URL

/**
 * [HttpTransport] over `java.net.HttpURLConnection`, which Android and the JVM both have (no
 * `java.net.http`, which Android lacks).
 *
 * The connection is opened first, so that a failure to connect is told apart ([NotSentException]: safe to
 * retry) from one after the request may have left. The body is sent in fixed-length streaming mode, which
 * also stops the JDK from resending a POST by itself after a broken connection; redirects are not followed and nothing is cached (the answers are
 * `no-store`). [readTimeoutMillis] bounds each read, so on a stream it is the longest silence between
 * two pieces, not the stream's length.
 */
class UrlConnectionTransport @JvmOverloads constructor(
    private val connectTimeoutMillis: Int = 10_000,
    private val readTimeoutMillis: Int = 30_000
) : HttpTransport {
    @Throws(IOException::class)
    override fun send(request: HttpRequest): HttpResponse {
        val connection = URL(request.url).openConnection() as HttpURLConnection
        try {
            connection.requestMethod = request.method
            connection.connectTimeout = connectTimeoutMillis
            connection.readTimeout = readTimeoutMillis
            connection.instanceFollowRedirects = false
            connection.useCaches = false
            for ((name, value) in request.headers) connection.setRequestProperty(name, value)
            if (request.method != "GET") {
                connection.doOutput = true
                connection.setFixedLengthStreamingMode(request.body.size)
            }
            try {
                connection.connect()
            } catch (error: IOException) {
                throw NotSentException(error)
            }
            if (request.method != "GET") connection.outputStream.use { it.write(request.body) }
            val status = connection.responseCode
            val headers = LinkedHashMap<String, String>()
            for ((name, values) in connection.headerFields) {
                if (name != null) headers[name] = values.joinToString(", ")
            }
            val stream = (if (status >= 400) connection.errorStream else connection.inputStream)
                ?: ByteArrayInputStream(ByteArray(0))
            return HttpResponse(status, headers, stream, Closeable { connection.disconnect() })
        } catch (error: IOException) {
            connection.disconnect()
            throw error
        }
    }
}
