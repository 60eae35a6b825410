package dev.attestgate.client

/**
 * The debug token in the environment variable `ATTESTGATE_DEBUG_TOKEN`, read at each call: for the library
 * on the JVM (local unit tests of a debug build, Robolectric), where a CI job sets the variable from its
 * secrets. An app on a device has no such variable; the instrumentation argument is its way
 * (`InstrumentationArgumentDebugTokenSource`).
 */
class EnvironmentDebugTokenSource internal constructor(private val lookup: (String) -> String?) : DebugTokenSource {
    constructor() : this({ name -> System.getenv(name) })

    override fun token(): DebugToken? = DebugTokenNames.token(lookup(DebugTokenNames.VARIABLE))
}
