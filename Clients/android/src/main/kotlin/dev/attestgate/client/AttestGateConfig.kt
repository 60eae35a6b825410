package dev.attestgate.client

import java.util.UUID

/**
 * What the client needs to know about its server and install.
 *
 * [deviceId] is the guest's device ID: a UUID the app makes once (`UUID.randomUUID()`) and keeps (in
 * `SharedPreferences`, say); the allowance counts per device ID. It is sent in lower case, as the server
 * keys it.
 */
class AttestGateConfig @JvmOverloads constructor(
    /** `https://…` (or `http://` to a loopback address in tests), without a trailing slash or path. */
    baseUrl: String,
    deviceId: String,
    val retryPolicy: RetryPolicy = RetryPolicy(),
    /** The largest buffered answer read (the server forwards at most 6 MiB). */
    val maxResponseBytes: Int = 6 * 1024 * 1024 + 64 * 1024,
    /** Called at most once per call when Play could fix a refused or impossible proof; null: never. */
    val remediation: RemediationHook? = null,
    /** Bounds of a streamed answer's parser: the longest line, the largest event. */
    val maxEventLineBytes: Int = 1 shl 20,
    val maxEventBytes: Int = 4 shl 20,
    /**
     * A debug token instead of Play Integrity, for emulators and CI ([DebugTokenSource]): pass
     * `DebugTokens.source()`, which reads one only in debug builds.
     */
    val debugTokens: DebugTokenSource = DebugTokenSource.NONE
) {
    val baseUrl: String = baseUrl.trimEnd('/')
    val deviceId: String

    init {
        require(this.baseUrl.startsWith("https://") || this.baseUrl.startsWith("http://")) { "baseUrl must be http(s)" }
        val parsed = try {
            UUID.fromString(deviceId)
        } catch (error: IllegalArgumentException) {
            null
        }
        require(parsed != null && deviceId.length == 36) { "deviceId must be a UUID" }
        this.deviceId = asciiLower(deviceId)
    }
}
