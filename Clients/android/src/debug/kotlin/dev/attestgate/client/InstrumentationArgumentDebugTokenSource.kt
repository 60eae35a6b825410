package dev.attestgate.client

import androidx.test.platform.app.InstrumentationRegistry

/**
 * The debug token in the instrumentation argument `attestgateDebugToken`, for instrumented tests on an
 * emulator or a device: `am instrument -e attestgateDebugToken "$TOKEN" …`, or Gradle's
 * `-Pandroid.testInstrumentationRunnerArguments.attestgateDebugToken="$TOKEN"`. Outside an instrumentation
 * (the app started by hand) there are no arguments, and no token.
 *
 * Needs `androidx.test:monitor` on the debug build's classpath (`debugImplementation`): not compiled by
 * check.sh, which has no Android SDK.
 */
class InstrumentationArgumentDebugTokenSource : DebugTokenSource {
    override fun token(): DebugToken? {
        val arguments = try {
            InstrumentationRegistry.getArguments()
        } catch (error: IllegalStateException) {
            return null // not running under an instrumentation
        }
        return DebugTokenNames.token(arguments.getString(DebugTokenNames.ARGUMENT))
    }
}
