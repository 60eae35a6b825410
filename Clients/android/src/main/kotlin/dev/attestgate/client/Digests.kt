package dev.attestgate.client

import java.security.MessageDigest

/** Lower-case hex and SHA-256, the two encodings the wire contract hashes with (docs/api.md section 2). */
internal object Digests {
    private const val HEX_DIGITS = "0123456789abcdef"

    /** SHA-256 of [bytes] (`java.security.MessageDigest`, present on every Android version). */
    fun sha256(bytes: ByteArray): ByteArray = MessageDigest.getInstance("SHA-256").digest(bytes)

    /** Lower-case hex, two digits a byte: the spelling of `bodySHA256` and of `requestHash`. */
    fun hex(bytes: ByteArray): String {
        val out = StringBuilder(bytes.size * 2)
        for (byte in bytes) {
            val value = byte.toInt() and 0xff
            out.append(HEX_DIGITS[value ushr 4]).append(HEX_DIGITS[value and 0x0f])
        }
        return out.toString()
    }

    /** `hex(sha256(bytes))`. */
    fun sha256Hex(bytes: ByteArray): String = hex(sha256(bytes))
}
