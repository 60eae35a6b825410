package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test

/** The bounded parser: what the server answers parses, and nothing past the bounds or outside RFC 8259 does. */
class JsonParserTest {
    private val parser = JsonParser(maxBytes = 256, maxDepth = 4)

    private fun parse(text: String) = parser.parse(text.toByteArray(Charsets.UTF_8))

    @Test
    fun theChallengeAnswerAndARefusalParse() {
        val answer = parse(" {\"challenge\":\"q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=\",\"expiresAt\":1796541399}\n")
            as JsonValue.Object
        assertEquals("q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=", answer.string("challenge"))
        assertEquals(1796541399L, answer.long("expiresAt"))
        assertEquals(JsonValue.Str("quota_exhausted"), (parse("{\"error\":\"quota_exhausted\"}") as JsonValue.Object).members["error"])
    }

    @Test
    fun everyKindOfValueAndEscape() {
        val value = parse("[null,true,false,-0,12.5e-3,\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",{},[]]")
        val items = (value as JsonValue.Array).items
        assertEquals(8, items.size)
        assertEquals(JsonValue.Null, items[0])
        assertEquals(JsonValue.Number("12.5e-3"), items[4])
        assertEquals(null, (items[4] as JsonValue.Number).asLong())
        assertEquals("\"\\/\b\u000C\n\r\té\uD83D\uDE00", (items[5] as JsonValue.Str).value)
    }

    @Test
    fun sizeAndDepthAreBounded() {
        assertThrows(JsonException::class.java) { parse("\"" + "x".repeat(300) + "\"") }
        parse("[[[1]]]")
        assertThrows(JsonException::class.java) { parse("[[[[1]]]]") }
        assertThrows(JsonException::class.java) { JsonParser(maxBytes = 1 shl 20, maxDepth = 64).parse("[".repeat(100_000).toByteArray()) }
    }

    @Test
    fun whatRfc8259DoesNotAllowIsRefused() {
        val refused = listOf(
            "", "{", "{\"a\":1,}", "[1,]", "{\"a\":1}x", "{\"a\":1,\"a\":2}", "01", "1.", "-", "+1", ".5", "1e",
            "\"\u0001\"", "\"\\x\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\u12\"", "tru", "nul", "{a:1}", "'a'", "NaN"
        )
        for (text in refused) assertThrows(JsonException::class.java, { parse(text) }, text)
        assertThrows(JsonException::class.java) { parser.parse(byteArrayOf(0x22, 0xff.toByte(), 0x22)) }
    }
}
