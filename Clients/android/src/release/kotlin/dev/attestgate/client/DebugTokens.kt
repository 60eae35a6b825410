package dev.attestgate.client

/**
 * The release build's debug token: none, ever. The debug source set's `DebugTokens` reads one from the
 * instrumentation arguments or the environment; this one has neither reader nor the names they read, so a
 * release build carries no debug-token path (check.sh proves it on the class files).
 */
object DebugTokens {
    @JvmStatic
    fun source(): DebugTokenSource = DebugTokenSource.NONE
}
