package dev.attestgate.client

/**
 * The client's use of an [IntegrityTokenProvider]: prepare once before the first token, and when a
 * request reports `PROVIDER_INVALID`, prepare again and request once more: at most one re-preparation per
 * token, so an invalid provider never loops. Calls in parallel that see the same invalid provider prepare
 * it once between them. Thread-safe.
 */
internal class IntegrityTokens(private val provider: IntegrityTokenProvider) {
    private val lock = Any()
    /** How many preparations succeeded; 0: not prepared (or [invalidate]d). */
    private var generation = 0L
    private var preparedGeneration = 0L

    /** Prepares now (ahead of the first call). */
    @Throws(IntegrityException::class)
    fun prepare() {
        synchronized(lock) { prepareLocked() }
    }

    /** Forgets the preparation: the next token prepares first (after a remediation dialog, say). */
    fun invalidate() {
        synchronized(lock) { preparedGeneration = 0 }
    }

    /** A token for [requestHash]; see the class comment for the one re-preparation. */
    @Throws(IntegrityException::class)
    fun token(requestHash: String): String {
        val seen = synchronized(lock) {
            if (preparedGeneration == 0L) prepareLocked()
            preparedGeneration
        }
        try {
            return provider.request(requestHash)
        } catch (error: IntegrityException) {
            if (error.code != IntegrityException.Code.PROVIDER_INVALID) throw error
        }
        synchronized(lock) {
            // Another call may have prepared again since this one started: that preparation serves both.
            if (preparedGeneration == seen || preparedGeneration == 0L) prepareLocked()
        }
        return provider.request(requestHash)
    }

    private fun prepareLocked() {
        preparedGeneration = 0
        provider.prepare()
        generation += 1
        preparedGeneration = generation
    }
}
