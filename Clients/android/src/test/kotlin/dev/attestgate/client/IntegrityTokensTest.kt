package dev.attestgate.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/** Prepare once, re-prepare once per token on `INTEGRITY_TOKEN_PROVIDER_INVALID`, never loop. */
class IntegrityTokensTest {
    /** A provider whose every preparation stays valid for [validRequests] requests ([Int.MAX_VALUE]: always). */
    private class Scripted(private val validRequests: Int) : IntegrityTokenProvider {
        val prepares = AtomicInteger()
        val requests = AtomicInteger()
        private val left = AtomicInteger(0)

        override fun prepare() {
            prepares.incrementAndGet()
            left.set(validRequests)
        }

        override fun request(requestHash: String): String {
            requests.incrementAndGet()
            if (left.getAndDecrement() <= 0) {
                throw IntegrityException(IntegrityException.Code.PROVIDER_INVALID, "invalid", playErrorCode = -19)
            }
            return "token-for-$requestHash"
        }
    }

    @Test
    fun theProviderIsPreparedOnceBeforeItsFirstToken() {
        val provider = Scripted(Int.MAX_VALUE)
        val tokens = IntegrityTokens(provider)
        assertEquals("token-for-h1", tokens.token("h1"))
        assertEquals("token-for-h2", tokens.token("h2"))
        assertEquals(1, provider.prepares.get())
    }

    @Test
    fun anInvalidProviderIsPreparedAgainOnceAndTheRequestMadeAgain() {
        val provider = Scripted(1)
        val tokens = IntegrityTokens(provider)
        tokens.prepare()
        assertEquals("token-for-h1", tokens.token("h1"))
        assertEquals("token-for-h2", tokens.token("h2"), "h2 found the provider invalid, prepared again, asked again")
        assertEquals(2, provider.prepares.get())
        assertEquals(3, provider.requests.get())
    }

    @Test
    fun aProviderThatStaysInvalidGivesUpAfterOneReprepare() {
        val provider = Scripted(0)
        val tokens = IntegrityTokens(provider)
        val error = assertThrows(IntegrityException::class.java) { tokens.token("h") }
        assertEquals(IntegrityException.Code.PROVIDER_INVALID, error.code)
        assertEquals(2, provider.prepares.get(), "the first preparation and one more")
        assertEquals(2, provider.requests.get())
    }

    @Test
    fun parallelCallsThatFindTheProviderInvalidPrepareItOnceBetweenThem() {
        val invalid = AtomicInteger(1)
        val prepares = AtomicInteger()
        val gate = CountDownLatch(1)
        val provider = object : IntegrityTokenProvider {
            override fun prepare() {
                prepares.incrementAndGet()
            }

            override fun request(requestHash: String): String {
                gate.await()
                if (invalid.get() == 1 && prepares.get() == 1) {
                    throw IntegrityException(IntegrityException.Code.PROVIDER_INVALID, "invalid")
                }
                return "t"
            }
        }
        val tokens = IntegrityTokens(provider)
        tokens.prepare()
        val executor = Executors.newFixedThreadPool(4)
        val results = (1..4).map { executor.submit<String> { tokens.token("h$it") } }
        gate.countDown()
        assertEquals(listOf("t", "t", "t", "t"), results.map { it.get(10, TimeUnit.SECONDS) })
        executor.shutdown()
        assertEquals(2, prepares.get())
    }
}
