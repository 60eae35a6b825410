package dev.attestgate.client.play

import android.content.Context
import com.google.android.gms.tasks.Task
import com.google.android.gms.tasks.Tasks
import com.google.android.play.core.integrity.IntegrityManagerFactory
import com.google.android.play.core.integrity.StandardIntegrityException
import com.google.android.play.core.integrity.StandardIntegrityManager
import com.google.android.play.core.integrity.StandardIntegrityManager.PrepareIntegrityTokenRequest
import com.google.android.play.core.integrity.StandardIntegrityManager.StandardIntegrityToken
import com.google.android.play.core.integrity.StandardIntegrityManager.StandardIntegrityTokenProvider
import com.google.android.play.core.integrity.StandardIntegrityManager.StandardIntegrityTokenRequest
import com.google.android.play.core.integrity.model.StandardIntegrityErrorCode
import dev.attestgate.client.IntegrityException
import dev.attestgate.client.IntegrityTokenProvider
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.TimeoutException

// NOT COMPILED IN THIS REPOSITORY: this source set needs the Play Integrity library
// (com.google.android.play:integrity) and the Android SDK, which the build machine does not have.
// The core's tests stand a fake Google in for it (src/test, FakeGoogleIntegrity). README.md says how an
// app adds it and what to check against the Play library version it uses.

/**
 * [IntegrityTokenProvider] over Play Integrity's standard API (`StandardIntegrityManager`).
 *
 * [prepare] is `prepareIntegrityToken` for the app's Google Cloud project number (the project linked in
 * Play Console); [request] is the prepared provider's `request` with the call's `requestHash`. Both block
 * on the Play task (at most [timeoutMillis]) and must run off the main thread, as `AttestGateClient` runs
 * them. Play's failures become [IntegrityException] codes: `INTEGRITY_TOKEN_PROVIDER_INVALID` is
 * `PROVIDER_INVALID`, which the client answers by preparing again, once per call.
 *
 * The last token is kept ([lastToken]) for the remediation dialog (`PlayRemediation`).
 */
class PlayIntegrityTokenProvider @JvmOverloads constructor(
    context: Context,
    private val cloudProjectNumber: Long,
    private val timeoutMillis: Long = 15_000
) : IntegrityTokenProvider {
    private val manager: StandardIntegrityManager = IntegrityManagerFactory.createStandard(context.applicationContext)

    @Volatile
    private var provider: StandardIntegrityTokenProvider? = null

    /** The last token Play made (a dialog can be shown once per token); null before the first. */
    @Volatile
    var lastToken: StandardIntegrityToken? = null
        internal set

    override fun prepare() {
        val request = PrepareIntegrityTokenRequest.builder().setCloudProjectNumber(cloudProjectNumber).build()
        provider = await(manager.prepareIntegrityToken(request))
    }

    override fun request(requestHash: String): String {
        val prepared = provider
            ?: throw IntegrityException(IntegrityException.Code.PROVIDER_INVALID, "not prepared")
        val request = StandardIntegrityTokenRequest.builder().setRequestHash(requestHash).build()
        val token = await(prepared.request(request))
        lastToken = token
        return token.token()
    }

    private fun <T> await(task: Task<T>): T {
        try {
            return Tasks.await(task, timeoutMillis, TimeUnit.MILLISECONDS)
        } catch (error: ExecutionException) {
            throw typed(error.cause ?: error)
        } catch (error: TimeoutException) {
            throw IntegrityException(IntegrityException.Code.TRANSIENT, "Play Integrity timed out", cause = error)
        } catch (error: InterruptedException) {
            Thread.currentThread().interrupt()
            throw IntegrityException(IntegrityException.Code.TRANSIENT, "interrupted", cause = error)
        }
    }

    companion object {
        /** Play's standard-request error code as the client's [IntegrityException.Code]. */
        @JvmStatic
        fun codeOf(playErrorCode: Int): IntegrityException.Code = when (playErrorCode) {
            StandardIntegrityErrorCode.INTEGRITY_TOKEN_PROVIDER_INVALID -> IntegrityException.Code.PROVIDER_INVALID
            StandardIntegrityErrorCode.NETWORK_ERROR,
            StandardIntegrityErrorCode.GOOGLE_SERVER_UNAVAILABLE,
            StandardIntegrityErrorCode.CLIENT_TRANSIENT_ERROR,
            StandardIntegrityErrorCode.INTERNAL_ERROR -> IntegrityException.Code.TRANSIENT
            StandardIntegrityErrorCode.TOO_MANY_REQUESTS -> IntegrityException.Code.TOO_MANY_REQUESTS
            StandardIntegrityErrorCode.PLAY_STORE_NOT_FOUND,
            StandardIntegrityErrorCode.PLAY_STORE_VERSION_OUTDATED,
            StandardIntegrityErrorCode.PLAY_SERVICES_NOT_FOUND,
            StandardIntegrityErrorCode.PLAY_SERVICES_VERSION_OUTDATED,
            StandardIntegrityErrorCode.CANNOT_BIND_TO_SERVICE -> IntegrityException.Code.REMEDIABLE
            StandardIntegrityErrorCode.CLOUD_PROJECT_NUMBER_IS_INVALID,
            StandardIntegrityErrorCode.REQUEST_HASH_TOO_LONG -> IntegrityException.Code.MISCONFIGURED
            else -> IntegrityException.Code.UNAVAILABLE // API_NOT_AVAILABLE, APP_NOT_INSTALLED, APP_UID_MISMATCH, …
        }

        private fun typed(cause: Throwable): IntegrityException =
            if (cause is StandardIntegrityException) {
                IntegrityException(codeOf(cause.errorCode), cause.message ?: "Play Integrity error", cause.errorCode, cause)
            } else {
                IntegrityException(IntegrityException.Code.TRANSIENT, cause.message ?: cause.javaClass.name, cause = cause)
            }
    }
}
