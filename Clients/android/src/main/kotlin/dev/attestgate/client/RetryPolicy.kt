package dev.attestgate.client

import java.util.Random

/**
 * When the client tries a call again by itself: only for failures that spent nothing the user could lose
 * and that a moment's wait can cure: no connection (the request never left), `503 unavailable`, a platform
 * 5xx or a lost answer on the challenge endpoint, a transient Play Integrity error. Never for a refusal that means "not now" (`quota_exhausted`,
 * `daily_budget_exhausted`: hours away) or "not this install" (`attestation_required`, whose single
 * recovery is separate), and never for `upstream_unavailable` (the provider may have billed the call).
 *
 * At most [maxAttempts] attempts in all; before retry n (1, 2, …) it waits a random time in
 * [0, min([maxDelayMillis], [baseDelayMillis] · 2^(n-1))] (full jitter), or the server's `Retry-After` when
 * it is longer and at most [maxRetryAfterMillis]; a longer `Retry-After` ends the retries.
 */
class RetryPolicy @JvmOverloads constructor(
    val maxAttempts: Int = 3,
    val baseDelayMillis: Long = 250,
    val maxDelayMillis: Long = 4_000,
    val maxRetryAfterMillis: Long = 10_000
) {
    init {
        require(maxAttempts >= 1) { "maxAttempts must be at least 1" }
        require(baseDelayMillis >= 0 && maxDelayMillis >= baseDelayMillis) { "delays out of order" }
    }

    /**
     * How long to wait before retry number [retry] (1 for the second attempt), or null when the policy
     * gives up: no attempts left, or a `Retry-After` of [retryAfterSeconds] beyond [maxRetryAfterMillis].
     */
    fun delayBeforeRetry(retry: Int, retryAfterSeconds: Long?, random: Random): Long? {
        if (retry < 1 || retry >= maxAttempts) return null
        val ceiling = Math.min(maxDelayMillis, baseDelayMillis shl Math.min(retry - 1, 20))
        val jittered = if (ceiling <= 0) 0L else (random.nextDouble() * (ceiling + 1)).toLong()
        if (retryAfterSeconds == null) return jittered
        if (retryAfterSeconds < 0 || retryAfterSeconds > maxRetryAfterMillis / 1000) return null
        return Math.max(jittered, retryAfterSeconds * 1000)
    }

    companion object {
        /** One attempt, no retry. */
        @JvmField
        val NONE = RetryPolicy(maxAttempts = 1)
    }
}

/** How the client waits between attempts (tests record instead of sleeping). */
interface Sleeper {
    @Throws(InterruptedException::class)
    fun sleep(millis: Long)

    companion object {
        @JvmField
        val THREAD: Sleeper = object : Sleeper {
            override fun sleep(millis: Long) = Thread.sleep(millis)
        }
    }
}

/** The client's time (challenge expiry), injected so tests can move it. */
interface Clock {
    fun nowMillis(): Long

    companion object {
        @JvmField
        val SYSTEM: Clock = object : Clock {
            override fun nowMillis() = System.currentTimeMillis()
        }
    }
}
