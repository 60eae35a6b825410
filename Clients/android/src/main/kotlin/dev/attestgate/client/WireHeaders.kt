package dev.attestgate.client

/** The headers of the HTTP API (docs/api.md section 2), spelled as documented; names are case-insensitive. */
object WireHeaders {
    // Request headers.

    /** The guest's device ID: a UUID the app makes once and keeps. */
    const val DEVICE_ID = "X-Device-ID"
    /** An unspent challenge issued to this device ID (standard base64 of 32 bytes). */
    const val CHALLENGE = "X-Attest-Challenge"
    /** The Play Integrity standard-request token. */
    const val PLAY_INTEGRITY_TOKEN = "X-Play-Integrity-Token"
    /** Base64 of the client-data document the token's `requestHash` covers ([ClientData]). */
    const val CLIENT_DATA = "X-Attest-Client-Data"

    // Response headers.

    /** Calls left today on the route's feature for this device ID. */
    const val QUOTA_REMAINING = "X-Quota-Remaining"
    /** A fresh challenge for the next call, on every answer to a gated guest call (refusals too). */
    const val NEXT_CHALLENGE = "X-Attest-Next-Challenge"
    /** When [NEXT_CHALLENGE] expires, in Unix seconds. */
    const val NEXT_CHALLENGE_EXPIRES = "X-Attest-Next-Challenge-Expires"
    /** Seconds until a spent allowance or ceiling resets (`429 quota_exhausted`, `503 daily_budget_exhausted`). */
    const val RETRY_AFTER = "Retry-After"
}

/** ASCII-only lower case (header names; never locale-dependent). */
internal fun asciiLower(text: String): String {
    var out: StringBuilder? = null
    for (index in text.indices) {
        val c = text[index]
        if (c in 'A'..'Z') {
            if (out == null) out = StringBuilder(text.substring(0, index))
            out.append(c + ('a' - 'A'))
        } else {
            out?.append(c)
        }
    }
    return out?.toString() ?: text
}
