package dev.attestgate.client

import java.io.ByteArrayOutputStream
import java.io.Closeable
import java.io.IOException
import java.util.ArrayDeque

/**
 * One server-sent event as an `EventSource` would dispatch it (HTML Living Standard, "Server-sent events",
 * interpreting an event stream): [data] is the event's `data:` lines joined with "\n".
 */
data class ServerSentEvent(
    /** The `event:` field, `message` when the event has none. */
    val event: String,
    val data: String,
    /** The last `id:` seen on the stream so far (it carries over to later events), or null. */
    val id: String?,
    /** The `retry:` field of this event, in milliseconds, or null. */
    val retry: Long?
)

/** A stream that is not a well-formed event stream within the parser's bounds, or that broke. */
class EventStreamException(message: String, cause: Throwable? = null) : RuntimeException(message, cause)

/**
 * An event-stream parser fed with bytes as they arrive, bounded: a line over [maxLineBytes] or an event
 * whose data passes [maxEventBytes] throws [EventStreamException] (a provider that never sends a line
 * break cannot grow memory without end). Lines end at LF, CR or CRLF, also when CR and LF arrive in
 * different pieces; a leading byte-order mark is skipped; comments (`:`) and unknown fields are ignored;
 * an event with no data is not dispatched, and neither is one the stream ended inside of.
 */
class EventStreamParser @JvmOverloads constructor(
    private val maxLineBytes: Int = 1 shl 20,
    private val maxEventBytes: Int = 4 shl 20
) {
    private val line = ByteArrayOutputStream()
    private var afterCR = false
    private var firstLine = true
    private var eventType = ""
    private val data = StringBuilder()
    private var dataBytes = 0
    private var lastId: String? = null
    private var retry: Long? = null

    /** Parses [count] bytes of [bytes] from [offset]; returns the events they complete, in order. */
    fun feed(bytes: ByteArray, offset: Int = 0, count: Int = bytes.size - offset): List<ServerSentEvent> {
        val events = ArrayList<ServerSentEvent>()
        for (index in offset until offset + count) {
            val byte = bytes[index]
            if (afterCR) {
                afterCR = false
                if (byte == LF) continue // the LF of a CRLF
            }
            when (byte) {
                CR -> { afterCR = true; endLine(events) }
                LF -> endLine(events)
                else -> {
                    if (line.size() >= maxLineBytes) throw EventStreamException("a line over $maxLineBytes bytes")
                    line.write(byte.toInt())
                }
            }
        }
        return events
    }

    private fun endLine(events: MutableList<ServerSentEvent>) {
        var text = String(line.toByteArray(), Charsets.UTF_8)
        line.reset()
        if (firstLine) {
            firstLine = false
            if (text.startsWith("\uFEFF")) text = text.substring(1)
        }
        if (text.length == 0) {
            dispatch(events)
            return
        }
        if (text.startsWith(":")) return
        val colon = text.indexOf(':')
        val field = if (colon < 0) text else text.substring(0, colon)
        var value = if (colon < 0) "" else text.substring(colon + 1)
        if (value.startsWith(" ")) value = value.substring(1)
        when (field) {
            "event" -> eventType = value
            "data" -> {
                dataBytes += value.length + 1
                if (dataBytes > maxEventBytes) throw EventStreamException("an event over $maxEventBytes bytes")
                data.append(value).append('\n')
            }
            "id" -> if (value.indexOf('\u0000') < 0) lastId = value
            "retry" -> if (value.isNotEmpty() && value.all { it in '0'..'9' }) retry = value.toLongOrNull()
        }
    }

    private fun dispatch(events: MutableList<ServerSentEvent>) {
        if (data.isNotEmpty()) {
            data.setLength(data.length - 1) // the last "\n"
            events.add(ServerSentEvent(if (eventType.length == 0) "message" else eventType, data.toString(), lastId, retry))
        }
        eventType = ""
        data.setLength(0)
        dataBytes = 0
        retry = null
    }

    private companion object {
        const val CR: Byte = 13
        const val LF: Byte = 10
    }
}

/**
 * The events of a streamed answer as they arrive: an [Iterator] that reads the connection while the caller
 * iterates, and a [Closeable] that gives the connection back (close it when done, also after a break).
 *
 * Iteration throws [EventStreamException] when the connection breaks or the stream leaves the parser's
 * bounds. A stream that ends early (cut by the provider, past the route's `maxStreamSeconds` or
 * `maxStreamBytes`) simply ends: HTTP/1.1 carries the server's error trailers after the last chunk, which
 * `HttpURLConnection` does not expose, so an app that needs to know whether the answer is complete looks
 * for the provider's own last event (OpenAI's `[DONE]`, Anthropic's `message_stop`; docs/streaming.md).
 */
class EventStream internal constructor(private val response: HttpResponse, private val parser: EventStreamParser) :
    Iterator<ServerSentEvent>, Closeable {
    private val pending = ArrayDeque<ServerSentEvent>()
    private val buffer = ByteArray(16 * 1024)
    private var ended = false

    override fun hasNext(): Boolean {
        while (pending.isEmpty() && !ended) {
            val count = try {
                response.body.read(buffer)
            } catch (error: IOException) {
                close()
                throw EventStreamException("the stream broke: ${error.message}", error)
            }
            if (count < 0) {
                close()
            } else {
                pending.addAll(parser.feed(buffer, 0, count))
            }
        }
        return pending.isNotEmpty()
    }

    override fun next(): ServerSentEvent {
        if (!hasNext()) throw NoSuchElementException()
        return pending.removeFirst()
    }

    /** Every event left, until the stream ends (closes it). */
    fun readAll(): List<ServerSentEvent> {
        val events = ArrayList<ServerSentEvent>()
        while (hasNext()) events.add(next())
        return events
    }

    override fun close() {
        if (ended) return
        ended = true
        response.close()
    }
}
