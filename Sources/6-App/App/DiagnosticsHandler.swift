internal import AttestCore
package import LambdaRuntime

/// A development-only handler (`_HANDLER=diagnostics`) for exercising the runtime itself: it echoes
/// every event, except `{"diagnostics":"throw"}`, for which it throws, and
/// `{"diagnostics":"sleep","ms":N}` (N ≤ 60000), which answers after N ms. Refused in production.
package struct DiagnosticsHandler: LambdaHandler {
    package struct RequestedFailure: Error {}

    package init() {}

    package func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
        guard let json = try? JSONValue.parse(event) else { return event }
        switch json["diagnostics"]?.stringValue {
        case "throw":
            throw RequestedFailure()
        case "sleep":
            let milliseconds = min(max(json["ms"]?.intValue ?? 0, 0), 60_000)
            try await Task.sleep(for: .milliseconds(milliseconds))
            return event
        default:
            return event
        }
    }
}
