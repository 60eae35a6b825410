internal import Glibc

/// Where the invocation's trace id is published; the real one sets `_X_AMZN_TRACE_ID`.
package protocol TraceIDExporter: Sendable {
    func export(_ traceID: String?)
}

/// Sets (or clears) the `_X_AMZN_TRACE_ID` environment variable, as Lambda's own runtimes do before
/// each invocation. Only the loop calls it, between invocations, so no other thread reads the
/// environment while it changes.
package struct EnvironmentTraceIDExporter: TraceIDExporter {
    package init() {}

    package func export(_ traceID: String?) {
        if let traceID {
            setenv(RuntimeAPIConsts.traceIDVariable, traceID, 1)
        } else {
            unsetenv(RuntimeAPIConsts.traceIDVariable)
        }
    }
}
