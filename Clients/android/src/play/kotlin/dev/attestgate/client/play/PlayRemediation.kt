package dev.attestgate.client.play

import android.app.Activity
import android.os.Handler
import android.os.Looper
import com.google.android.gms.tasks.Task
import com.google.android.gms.tasks.Tasks
import com.google.android.play.core.integrity.model.IntegrityDialogResponseCode
import dev.attestgate.client.IntegrityException
import dev.attestgate.client.RemediationHook
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference

// NOT COMPILED IN THIS REPOSITORY (see PlayIntegrityTokenProvider.kt).

/**
 * The remediation dialog hook over Play's integrity dialogs (`StandardIntegrityToken.showDialog`, Play
 * Integrity library 1.3.0 or later): when the server refused a call's proof twice, it shows the dialog of
 * [dialogTypeCode] for the provider's last token on the activity in front and returns true only when Play
 * reports the dialog completed (`DIALOG_SUCCESSFUL`); the client then prepares the provider again and tries
 * once more. The server never says which verdict failed, so the app picks the dialog: a general integrity
 * dialog (`IntegrityDialogTypeCode.GET_INTEGRITY`, where the app's Play library has it) or `GET_LICENSED`.
 *
 * A refusal the app cannot show a dialog for (no activity in front, no token yet, a token whose dialog was
 * already shown) returns false. `Reason.INTEGRITY_ERROR` (Play Store or Services missing or outdated, so no
 * token at all) is not handled here: an app can handle it in a hook of its own (README.md).
 *
 * `remediate` runs on the client's background thread: the dialog is started on the main thread and its
 * result awaited here, at most ten minutes.
 */
class PlayRemediation(
    private val provider: PlayIntegrityTokenProvider,
    private val dialogTypeCode: Int,
    /** The activity in front, or null (the app's own tracking, e.g. ActivityLifecycleCallbacks). */
    private val currentActivity: () -> Activity?
) : RemediationHook {
    private val timeoutMinutes = 10L

    override fun remediate(reason: RemediationHook.Reason, error: IntegrityException?): Boolean {
        if (reason != RemediationHook.Reason.ATTESTATION_REFUSED) return false
        val token = provider.lastToken ?: return false
        val activity = currentActivity() ?: return false
        provider.lastToken = null // one dialog per token
        val started = AtomicReference<Task<Int>?>()
        val ready = CountDownLatch(1)
        Handler(Looper.getMainLooper()).post {
            try {
                started.set(token.showDialog(activity, dialogTypeCode))
            } finally {
                ready.countDown()
            }
        }
        return try {
            if (!ready.await(timeoutMinutes, TimeUnit.MINUTES)) return false
            val task = started.get() ?: return false
            Tasks.await(task, timeoutMinutes, TimeUnit.MINUTES) == IntegrityDialogResponseCode.DIALOG_SUCCESSFUL
        } catch (failure: Exception) {
            false
        }
    }
}
