package dev.attestgate.client

/**
 * JSON text for the few documents the client writes, escaped exactly as the server's serializer escapes:
 * quote, backslash and every control character (`\n`, `\r`, `\t`, else `\u00XX` in lower-case hex), and
 * U+2028 / U+2029; every other character is written as itself (UTF-8), `/` included. The server hashes
 * the bytes it receives and never re-serialises them, so this matters only for byte-identical vectors.
 */
internal object JsonText {
    private const val HEX_DIGITS = "0123456789abcdef"

    /** [value] as a JSON string literal, quotes included. */
    fun quote(value: String): String {
        val out = StringBuilder(value.length + 2)
        out.append('"')
        for (c in value) {
            when {
                c == '"' -> out.append("\\\"")
                c == '\\' -> out.append("\\\\")
                c == '\n' -> out.append("\\n")
                c == '\r' -> out.append("\\r")
                c == '\t' -> out.append("\\t")
                c < ' ' || c == '\u2028' || c == '\u2029' -> {
                    val code = c - '\u0000'
                    out.append("\\u")
                    for (shift in intArrayOf(12, 8, 4, 0)) out.append(HEX_DIGITS[(code shr shift) and 0x0f])
                }
                else -> out.append(c)
            }
        }
        return out.append('"').toString()
    }

    /** An object with its members in the order given (callers pass them sorted, as the server writes them). */
    fun objectOf(members: List<Pair<String, String>>): String =
        members.joinToString(separator = ",", prefix = "{", postfix = "}") { (key, value) -> quote(key) + ":" + quote(value) }
}
