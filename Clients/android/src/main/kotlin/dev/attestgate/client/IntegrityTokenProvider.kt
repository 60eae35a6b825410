package dev.attestgate.client

/**
 * Play Integrity's standard request behind an interface, so that the client core builds and is tested
 * without the Play library: `PlayIntegrityTokenProvider` (the `play` source set) implements it with
 * `StandardIntegrityManager`; tests implement it with the fake Google of the local stack.
 *
 * The contract follows the standard API:
 * - [prepare] warms the provider up (`prepareIntegrityToken`): a call to Google, seconds on a slow network.
 *   Do it ahead of time (app start), off the main thread; the client also prepares lazily before its first
 *   token, and again, once per call, when [request] says the provider became invalid.
 * - [request] makes a token whose verdict carries [request]'s `requestHash` (a standard request: fast, no
 *   call to Google's servers while the provider is valid). The client passes `ClientData.requestHash`.
 *
 * Both block the calling thread and throw [IntegrityException] with a typed [IntegrityException.Code].
 * Implementations must be safe to call from several threads.
 */
interface IntegrityTokenProvider {
    @Throws(IntegrityException::class)
    fun prepare()

    @Throws(IntegrityException::class)
    fun request(requestHash: String): String
}

/**
 * A Play Integrity failure, typed by what the client does about it. [playErrorCode] is the
 * `StandardIntegrityErrorCode` the Play library reported, when there was one (for logs and support).
 */
class IntegrityException @JvmOverloads constructor(
    val code: Code,
    message: String,
    val playErrorCode: Int? = null,
    cause: Throwable? = null
) : Exception(message, cause) {
    enum class Code {
        /** `INTEGRITY_TOKEN_PROVIDER_INVALID`: prepare again (the client does, once per call). */
        PROVIDER_INVALID,
        /** Network, Google's servers, a transient client error: the retry policy may try again. */
        TRANSIENT,
        /** Too many requests from this app: no retry now. */
        TOO_MANY_REQUESTS,
        /** Play Store or Play Services missing, outdated or unreachable: a Play dialog can fix it. */
        REMEDIABLE,
        /** The app's setup (cloud project number, request hash length): a bug to fix, never retried. */
        MISCONFIGURED,
        /** Play Integrity cannot run for this install (API not available, app not installed from Play, …). */
        UNAVAILABLE
    }
}
