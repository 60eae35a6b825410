package dev.attestgate.client

/**
 * Where the client finds an operator's debug token (`attestgate debug-token create`, docs/clients.md,
 * "Debug tokens") for emulators and CI, which cannot pass Play Integrity. The client asks once per call, before anything
 * else. When it has a token, that call is proved by the token alone: it carries `X-Device-ID` and the token's
 * header, no challenge (none is fetched or spent) and no Play Integrity token (the provider is not asked); a
 * `403 attestation_required` is final ([Outcome.AttestationRequired] after one attempt: the token is unknown,
 * revoked, expired, not made for the route, or the deployment has `DEBUG_TOKENS=off`), with no recovery and
 * no remediation dialog. The server meters such calls as the token, one allowance whatever the device ID.
 *
 * The default is [NONE]. The readers, and the header name itself, are in the debug build type's source set
 * (`src/debug`, `DebugTokens.source()`), and the release source set's `DebugTokens.source()` is [NONE], so a
 * release build carries no debug-token path (Clients/android/check.sh proves it on the class files).
 *
 * Implementations must be safe to call from several threads.
 */
interface DebugTokenSource {
    /** The token for the call about to be made, or null: the call proves itself with Play Integrity. */
    fun token(): DebugToken?

    companion object {
        /** Never a token. */
        @JvmField
        val NONE: DebugTokenSource = object : DebugTokenSource {
            override fun token(): DebugToken? = null
        }
    }
}

/**
 * A debug token and the request header that carries it. The header's name comes with the token, from the
 * debug source set, so that the release build has neither.
 */
class DebugToken(val header: String, val value: String) {
    init {
        require(header.isNotEmpty() && value.isNotEmpty()) { "a debug token needs a header and a value" }
    }

    /** Never the token: it is a secret of the CI system. */
    override fun toString() = "DebugToken($header, ${value.length} characters)"
}
