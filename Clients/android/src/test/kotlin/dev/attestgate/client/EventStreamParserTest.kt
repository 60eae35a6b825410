package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test

/** The event-stream parser against the HTML standard's interpretation rules, fed in pieces. */
class EventStreamParserTest {
    private fun parseInPieces(text: String, pieceSize: Int): List<ServerSentEvent> {
        val parser = EventStreamParser()
        val bytes = text.toByteArray(Charsets.UTF_8)
        val events = ArrayList<ServerSentEvent>()
        var offset = 0
        while (offset < bytes.size) {
            val count = Math.min(pieceSize, bytes.size - offset)
            events.addAll(parser.feed(bytes, offset, count))
            offset += count
        }
        return events
    }

    @Test
    fun anOpenAiStyleStreamGivesItsEventsWhateverThePieces() {
        val stream = "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
            ": a comment\n" +
            "event: update\ndata: line one\ndata: line two\nid: 7\n\n" +
            "data: [DONE]\n\n"
        for (size in listOf(1, 2, 3, 7, 1000)) {
            val events = parseInPieces(stream, size)
            assertEquals(3, events.size, "piece size $size")
            assertEquals(ServerSentEvent("message", "{\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}", null, null), events[0])
            assertEquals(ServerSentEvent("update", "line one\nline two", "7", null), events[1])
            assertEquals(ServerSentEvent("message", "[DONE]", "7", null), events[2])
        }
    }

    @Test
    fun linesEndAtCrLfCrOrLfEvenWhenCrAndLfArriveApart() {
        val stream = "\uFEFFdata:a\r\n\r\ndata:b\r\rdata:c\n\ndata:d\r"
        for (size in listOf(1, 4, 100)) {
            val events = parseInPieces(stream + "\n", size)
            assertEquals(listOf("a", "b", "c"), events.map { it.data }, "piece size $size")
        }
    }

    @Test
    fun fieldsWithoutDataAndAnUnfinishedEventAreNotDispatched() {
        val events = parseInPieces("event: ping\n\nid\ndata\n\nretry: 3000\ndata: x\n\nretry: soon\ndata: y\n\ndata: cut", 5)
        assertEquals(listOf(ServerSentEvent("message", "", "", null), ServerSentEvent("message", "x", "", 3000L),
            ServerSentEvent("message", "y", "", null)), events)
    }

    @Test
    fun aLineOrAnEventPastItsBoundThrows() {
        assertThrows(EventStreamException::class.java) { EventStreamParser(maxLineBytes = 16).feed(("data: " + "x".repeat(20)).toByteArray()) }
        val parser = EventStreamParser(maxLineBytes = 64, maxEventBytes = 100)
        val line = ("data: " + "y".repeat(40) + "\n").toByteArray()
        parser.feed(line)
        parser.feed(line)
        assertThrows(EventStreamException::class.java) { parser.feed(line) }
    }
}
