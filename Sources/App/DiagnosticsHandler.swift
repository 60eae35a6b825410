internal import AttestCore
package import LambdaRuntime

/// A development-only handler (`_HANDLER=diagnostics`) for exercising the runtime itself: it echoes
/// every event, except `{"diagnostics":"throw"}`, for which it throws. Refused in production.
package struct DiagnosticsHandler: LambdaHandler {
    package struct RequestedFailure: Error {}

    package init() {}

    package func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        if let json = try? JSONValue.parse(event), json["diagnostics"]?.stringValue == "throw" {
            throw RequestedFailure()
        }
        return event
    }
}
