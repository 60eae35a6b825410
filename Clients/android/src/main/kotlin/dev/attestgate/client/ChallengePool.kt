package dev.attestgate.client

/** A challenge the server issued to this device ID, and when it expires (Unix seconds). */
class Challenge(val value: String, val expiresAtSeconds: Long)

/**
 * Challenges the server handed out with earlier answers (`X-Attest-Next-Challenge`), kept for the next
 * calls so that an app asks the challenge endpoint only for its first call (docs/api.md section 2).
 *
 * Each challenge is single-use: [take] removes it, so calls running in parallel never share one. A
 * challenge within [marginSeconds] of its expiry is dropped rather than handed out (the call still has to
 * reach the server). At most [capacity] are kept, the ones that expire first dropped first. Thread-safe.
 */
class ChallengePool @JvmOverloads constructor(
    private val capacity: Int = 8,
    private val marginSeconds: Long = 15
) {
    private val lock = Any()
    private val entries = ArrayList<Challenge>()

    /** Keeps [challenge] until its expiry minus the margin. */
    fun offer(challenge: Challenge) {
        synchronized(lock) {
            if (entries.any { it.value == challenge.value }) return
            entries.add(challenge)
            entries.sortBy { it.expiresAtSeconds }
            while (entries.size > capacity) entries.removeAt(0)
        }
    }

    /** Keeps [value] until [expiresAtSeconds] (Unix seconds) minus the margin. */
    fun offer(value: String, expiresAtSeconds: Long) = offer(Challenge(value, expiresAtSeconds))

    /** The live challenge that expires first, removed from the pool; null when none is left. */
    fun take(nowSeconds: Long): Challenge? {
        synchronized(lock) {
            entries.removeAll { it.expiresAtSeconds - marginSeconds <= nowSeconds }
            return if (entries.isEmpty()) null else entries.removeAt(0)
        }
    }

    /** How many challenges are kept (expired ones included until the next [take]). */
    val size: Int get() = synchronized(lock) { entries.size }

    /** Forgets every challenge (a new device ID: the old ones were issued to another). */
    fun clear() {
        synchronized(lock) { entries.clear() }
    }
}
