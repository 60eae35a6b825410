/// Handles one invocation's event bytes and returns the response bytes.
///
/// A thrown error is reported to the Runtime API as a function error (`/invocation/{id}/error`) and
/// the loop goes on to the next event; it never ends the process. API Gateway handlers should not throw
/// for bad client input: they answer with a 4xx response instead.
package protocol LambdaHandler: Sendable {
    func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8]

    /// The response the loop posts: buffered (the default, `handle`'s bytes) or streamed.
    func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse
}

extension LambdaHandler {
    package func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse {
        .buffered(try await handle(event, context: context))
    }
}
