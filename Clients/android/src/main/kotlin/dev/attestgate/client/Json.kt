package dev.attestgate.client

import java.nio.ByteBuffer
import java.nio.charset.CharacterCodingException
import java.nio.charset.CodingErrorAction

/** A parsed JSON value (RFC 8259). Numbers keep their text; [JsonValue.Number.asLong] reads integers. */
sealed class JsonValue {
    object Null : JsonValue()
    data class Bool(val value: Boolean) : JsonValue()
    data class Number(val text: String) : JsonValue() {
        /** The value when it is an integer that fits a Long, else null. */
        fun asLong(): Long? = if (text.all { it in '0'..'9' || it == '-' }) text.toLongOrNull() else null
    }
    data class Str(val value: String) : JsonValue()
    data class Array(val items: List<JsonValue>) : JsonValue()
    data class Object(val members: Map<String, JsonValue>) : JsonValue() {
        fun string(key: String): String? = (members[key] as? Str)?.value
        fun long(key: String): Long? = (members[key] as? Number)?.asLong()
    }
}

/** A JSON document the parser refused: not JSON, or over one of its bounds. */
class JsonException(message: String) : Exception(message)

/**
 * A bounded, strict JSON parser for the server's small answers (the challenge, refusal bodies).
 *
 * It refuses input over [maxBytes], nesting deeper than [maxDepth], invalid UTF-8, a duplicate key,
 * anything RFC 8259 does not allow (a leading zero, a lone surrogate escape, a raw control character in a
 * string), and trailing content after the value (only blanks may follow).
 */
class JsonParser @JvmOverloads constructor(val maxBytes: Int = 64 * 1024, val maxDepth: Int = 16) {
    /** @throws JsonException when [bytes] is not one JSON value within the bounds. */
    fun parse(bytes: ByteArray): JsonValue {
        if (bytes.size > maxBytes) throw JsonException("document over $maxBytes bytes")
        val text = try {
            Charsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(bytes)).toString()
        } catch (error: CharacterCodingException) {
            throw JsonException("not UTF-8")
        }
        val reader = Reader(text)
        reader.skipBlanks()
        val value = reader.value(0)
        reader.skipBlanks()
        if (!reader.atEnd()) throw JsonException("trailing content at ${reader.position}")
        return value
    }

    private inner class Reader(private val text: String) {
        var position = 0

        fun atEnd() = position >= text.length

        fun skipBlanks() {
            while (!atEnd() && text[position].let { it == ' ' || it == '\t' || it == '\n' || it == '\r' }) position++
        }

        private fun fail(what: String): Nothing = throw JsonException("$what at $position")

        private fun expect(literal: String) {
            if (!text.startsWith(literal, position)) fail("expected $literal")
            position += literal.length
        }

        fun value(depth: Int): JsonValue {
            if (depth >= maxDepth) fail("nesting deeper than $maxDepth")
            if (atEnd()) fail("unexpected end")
            return when (text[position]) {
                '{' -> objectValue(depth)
                '[' -> arrayValue(depth)
                '"' -> JsonValue.Str(string())
                't' -> { expect("true"); JsonValue.Bool(true) }
                'f' -> { expect("false"); JsonValue.Bool(false) }
                'n' -> { expect("null"); JsonValue.Null }
                else -> number()
            }
        }

        private fun objectValue(depth: Int): JsonValue {
            position++
            val members = LinkedHashMap<String, JsonValue>()
            skipBlanks()
            if (!atEnd() && text[position] == '}') { position++; return JsonValue.Object(members) }
            while (true) {
                skipBlanks()
                if (atEnd() || text[position] != '"') fail("expected a key")
                val key = string()
                if (members.containsKey(key)) fail("duplicate key")
                skipBlanks()
                expect(":")
                skipBlanks()
                members[key] = value(depth + 1)
                skipBlanks()
                if (atEnd()) fail("unexpected end")
                when (text[position++]) {
                    ',' -> Unit
                    '}' -> return JsonValue.Object(members)
                    else -> { position--; fail("expected , or }") }
                }
            }
        }

        private fun arrayValue(depth: Int): JsonValue {
            position++
            val items = ArrayList<JsonValue>()
            skipBlanks()
            if (!atEnd() && text[position] == ']') { position++; return JsonValue.Array(items) }
            while (true) {
                skipBlanks()
                items.add(value(depth + 1))
                skipBlanks()
                if (atEnd()) fail("unexpected end")
                when (text[position++]) {
                    ',' -> Unit
                    ']' -> return JsonValue.Array(items)
                    else -> { position--; fail("expected , or ]") }
                }
            }
        }

        private fun string(): String {
            position++ // the opening quote
            val out = StringBuilder()
            while (true) {
                if (atEnd()) fail("unterminated string")
                val c = text[position++]
                when {
                    c == '"' -> return out.toString()
                    c == '\\' -> escape(out)
                    c < ' ' -> { position--; fail("control character in string") }
                    else -> out.append(c)
                }
            }
        }

        private fun escape(out: StringBuilder) {
            if (atEnd()) fail("unterminated escape")
            when (text[position++]) {
                '"' -> out.append('"')
                '\\' -> out.append('\\')
                '/' -> out.append('/')
                'b' -> out.append('\b')
                'f' -> out.append('\u000C')
                'n' -> out.append('\n')
                'r' -> out.append('\r')
                't' -> out.append('\t')
                'u' -> {
                    val unit = hex4()
                    if (unit in 0xD800..0xDBFF) {
                        if (!text.startsWith("\\u", position)) fail("lone high surrogate")
                        position += 2
                        val low = hex4()
                        if (low !in 0xDC00..0xDFFF) fail("lone high surrogate")
                        out.append(unit.toChar()).append(low.toChar())
                    } else {
                        if (unit in 0xDC00..0xDFFF) fail("lone low surrogate")
                        out.append(unit.toChar())
                    }
                }
                else -> { position--; fail("unknown escape") }
            }
        }

        private fun hex4(): Int {
            if (position + 4 > text.length) fail("short \\u escape")
            var value = 0
            repeat(4) {
                val c = text[position++]
                val digit = when (c) {
                    in '0'..'9' -> c - '0'
                    in 'a'..'f' -> c - 'a' + 10
                    in 'A'..'F' -> c - 'A' + 10
                    else -> { position--; fail("bad \\u escape") }
                }
                value = value * 16 + digit
            }
            return value
        }

        private fun number(): JsonValue {
            val start = position
            if (!atEnd() && text[position] == '-') position++
            if (atEnd()) fail("bad number")
            if (text[position] == '0') {
                position++
            } else if (text[position] in '1'..'9') {
                while (!atEnd() && text[position] in '0'..'9') position++
            } else {
                fail("unexpected character")
            }
            if (!atEnd() && text[position] == '.') {
                position++
                digits()
            }
            if (!atEnd() && (text[position] == 'e' || text[position] == 'E')) {
                position++
                if (!atEnd() && (text[position] == '+' || text[position] == '-')) position++
                digits()
            }
            return JsonValue.Number(text.substring(start, position))
        }

        private fun digits() {
            val start = position
            while (!atEnd() && text[position] in '0'..'9') position++
            if (position == start) fail("bad number")
        }
    }
}
