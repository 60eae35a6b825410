package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.Random
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit

/** The two small state keepers: the retry decision and the challenge pool. */
class RetryPolicyAndPoolTest {
    @Test
    fun retriesAreBoundedAndJitteredWithinTheDoublingCeiling() {
        val policy = RetryPolicy(maxAttempts = 4, baseDelayMillis = 100, maxDelayMillis = 300, maxRetryAfterMillis = 5_000)
        val random = Random(7)
        repeat(200) {
            assertTrue(policy.delayBeforeRetry(1, null, random)!! in 0..100)
            assertTrue(policy.delayBeforeRetry(2, null, random)!! in 0..200)
            assertTrue(policy.delayBeforeRetry(3, null, random)!! in 0..300)
        }
        assertNull(policy.delayBeforeRetry(4, null, random), "4 attempts in all")
        assertNull(policy.delayBeforeRetry(0, null, random))
        assertNull(RetryPolicy.NONE.delayBeforeRetry(1, null, random))
    }

    @Test
    fun retryAfterIsHonouredUpToItsCapAndEndsTheRetriesBeyond() {
        val policy = RetryPolicy(maxAttempts = 3, baseDelayMillis = 10, maxDelayMillis = 10, maxRetryAfterMillis = 5_000)
        assertEquals(2_000L, policy.delayBeforeRetry(1, 2, Random(1)))
        assertNull(policy.delayBeforeRetry(1, 6, Random(1)), "a quota's Retry-After (hours) is never waited for")
    }

    @Test
    fun aChallengeIsHandedOutOnceAndNeverCloseToItsExpiry() {
        val pool = ChallengePool(capacity = 3, marginSeconds = 10)
        pool.offer("a", 1_000)
        pool.offer("a", 1_000)
        pool.offer("b", 2_000)
        assertEquals(2, pool.size)
        assertEquals("a", pool.take(985)?.value, "the one that expires first")
        assertEquals(null, pool.take(1_995), "b is within the margin of its expiry")
        assertEquals(0, pool.size)
        for (index in 1..5) pool.offer("c$index", 3_000L + index)
        assertEquals(listOf("c3", "c4", "c5"), listOf(pool.take(0)?.value, pool.take(0)?.value, pool.take(0)?.value))
    }

    @Test
    fun callsInParallelNeverShareAChallenge() {
        val pool = ChallengePool(capacity = 1000)
        for (index in 0 until 1000) pool.offer("c$index", 10_000)
        val taken = Collections.synchronizedList(ArrayList<String>())
        val executor = Executors.newFixedThreadPool(8)
        repeat(8) {
            executor.execute {
                while (true) taken.add(pool.take(0)?.value ?: break)
            }
        }
        executor.shutdown()
        assertTrue(executor.awaitTermination(10, TimeUnit.SECONDS))
        assertEquals(1000, taken.size)
        assertEquals(1000, taken.toSet().size)
    }
}
