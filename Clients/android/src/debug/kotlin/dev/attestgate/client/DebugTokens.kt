package dev.attestgate.client

/**
 * The debug build's debug token: the instrumentation argument `attestgateDebugToken`, else the environment
 * variable `ATTESTGATE_DEBUG_TOKEN`, else none. The release source set has the same entry point, which
 * never has a token, so an app writes `AttestGateConfig(…, debugTokens = DebugTokens.source())` once for both.
 *
 * Not compiled by check.sh (it names the androidx.test reader); its JVM part is.
 */
object DebugTokens {
    @JvmStatic
    fun source(): DebugTokenSource = object : DebugTokenSource {
        private val instrumentation = InstrumentationArgumentDebugTokenSource()
        private val environment = EnvironmentDebugTokenSource()

        override fun token(): DebugToken? = instrumentation.token() ?: environment.token()
    }
}
