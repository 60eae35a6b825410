package dev.attestgate.client

/**
 * Where the app may let Google Play fix what stops this install from proving itself (Play's remediation
 * dialogs). The client calls it **at most once per call**, on a background thread, and only:
 * - after the server refused the call's proof twice ([Reason.ATTESTATION_REFUSED]), or
 * - when no token could be made for a reason Play can fix ([Reason.INTEGRITY_ERROR] with
 *   `IntegrityException.Code.REMEDIABLE`).
 *
 * Return true when the user completed the dialog: the client prepares the provider again and makes one
 * more attempt. Return false (dismissed, no activity in front, nothing to show) and the call ends with its
 * outcome. A hook never loops: the second refusal after a remediation is final for the call.
 * `PlayRemediation` (the `play` source set) shows the dialog of the last token.
 */
interface RemediationHook {
    enum class Reason { ATTESTATION_REFUSED, INTEGRITY_ERROR }

    /** [error] is the Play failure for [Reason.INTEGRITY_ERROR], null otherwise. */
    fun remediate(reason: Reason, error: IntegrityException?): Boolean
}
