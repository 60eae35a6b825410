package dev.attestgate.client

/**
 * The names a debug token goes by, in the debug source set only: the request header (docs/api.md section 2,
 * `X-Debug-Token`), the environment variable and the instrumentation argument it is read from.
 * check.sh proves that a release build's classes carry none of them.
 */
internal object DebugTokenNames {
    const val HEADER = "X-Debug-Token"
    /** Read by [EnvironmentDebugTokenSource]: JVM tests (Gradle's `testDebugUnitTest`, Robolectric). */
    const val VARIABLE = "ATTESTGATE_DEBUG_TOKEN"
    /** Read by `InstrumentationArgumentDebugTokenSource`: `am instrument -e attestgateDebugToken …`. */
    const val ARGUMENT = "attestgateDebugToken"

    /** [text] as the token, trimmed (a secret pasted with its newline); null when unset or blank. */
    fun token(text: String?): DebugToken? {
        val value = text?.trim()
        return if (value == null || value.length == 0) null else DebugToken(HEADER, value)
    }
}
