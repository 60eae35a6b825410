package dev.attestgate.client

import java.util.Base64

/**
 * The client-data document of request binding (docs/api.md section 2, "What the proof covers"):
 * `{"bodySHA256":…,"challenge":…,"method":…,"path":…}`.
 *
 * The app sends these exact bytes, base64, in `X-Attest-Client-Data`, and proves them: on Android the
 * Play Integrity standard request carries `requestHash = hex(SHA-256(bytes))`. The server hashes the bytes
 * it received (it never re-serialises them) and compares each field with the request it actually got, so
 * a token made for one call (challenge, method, path, body) fits no other. The members are written in the
 * order the server's own serializer uses (sorted by key, no blanks: `WireContract.ClientData`), so the same
 * inputs give byte-identical documents on both sides.
 */
class ClientData private constructor(
    /** The `X-Attest-Challenge` value, standard base64 as the server issued it. */
    val challenge: String,
    /** Upper case: `GET`, `POST`, `PUT`, `PATCH` or `DELETE`. */
    val method: String,
    /** The raw path exactly as sent, without a query. */
    val path: String,
    /** Lower-case hex SHA-256 of the raw request body (of no bytes for an empty body). */
    val bodySha256: String,
    private val document: ByteArray
) {
    /** The document's bytes (a copy). */
    val bytes: ByteArray get() = document.copyOf()

    /** The `X-Attest-Client-Data` header value: standard base64 of [bytes]. */
    val header: String get() = Base64.getEncoder().encodeToString(document)

    /** Play Integrity's `requestHash` for this call: lower-case hex SHA-256 of [bytes] (64 characters). */
    val requestHash: String get() = Digests.sha256Hex(document)

    companion object {
        /** The largest document the server reads (`ClientData.maxBytes` on the server). */
        const val MAX_BYTES = 2048

        private val METHODS = setOf("GET", "POST", "PUT", "PATCH", "DELETE")

        /**
         * The document for one request.
         * @throws IllegalArgumentException for a method the routes cannot have, a path that is not an
         *   absolute, already percent-encoded path without query or fragment, or a document over [MAX_BYTES].
         */
        @JvmStatic
        fun of(challenge: String, method: String, path: String, body: ByteArray): ClientData {
            require(method in METHODS) { "method must be one of $METHODS" }
            require(isRawPath(path)) { "path must start with / and hold only visible ASCII, without ? or #" }
            val bodySha256 = Digests.sha256Hex(body)
            val text = JsonText.objectOf(
                listOf("bodySHA256" to bodySha256, "challenge" to challenge, "method" to method, "path" to path)
            )
            val document = text.toByteArray(Charsets.UTF_8)
            require(document.size <= MAX_BYTES) { "client data over $MAX_BYTES bytes" }
            return ClientData(challenge, method, path, bodySha256, document)
        }

        /** `bodySHA256` of [body]: lower-case hex SHA-256. */
        @JvmStatic
        fun bodySha256(body: ByteArray): String = Digests.sha256Hex(body)

        private fun isRawPath(path: String): Boolean =
            path.startsWith("/") && path.all { it in '!'..'~' && it != '?' && it != '#' }
    }
}

/** The hash rule of challenge binding (a route with `"binding": "challenge"`, docs/api.md section 2). */
object ChallengeBinding {
    /** Play Integrity's `requestHash`: lower-case hex SHA-256 of `deviceId + "\n" + challenge` (as sent). */
    @JvmStatic
    fun requestHash(deviceId: String, challenge: String): String =
        Digests.sha256Hex((deviceId + "\n" + challenge).toByteArray(Charsets.UTF_8))
}
