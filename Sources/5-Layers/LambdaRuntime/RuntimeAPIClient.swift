/// The Lambda Runtime API as the run loop sees it.
///
/// The real implementation (`CurlRuntimeAPIClient`) speaks HTTP to `AWS_LAMBDA_RUNTIME_API`; tests use
/// an in-memory fake. Contract, following the Runtime API reference
/// (https://docs.aws.amazon.com/lambda/latest/dg/runtimes-api.html):
/// - `next()` long-polls `GET /runtime/invocation/next` with no timeout and returns the raw event and
///   its headers. A 500 answer, or no answer at all, throws: the runtime must then exit.
/// - `respond` / `fail` post the outcome of one invocation; `initError` reports a failure before the
///   first `next()`. A 500 answer throws `.fatal`; other unexpected statuses throw `.unexpectedStatus`.
package protocol RuntimeAPIClient: Sendable {
    /// Waits for the next invocation.
    /// - Throws: `RuntimeAPIError` when the Runtime API fails; the loop then ends.
    func next() async throws(RuntimeAPIError) -> RawInvocation

    /// Posts the handler's response for `requestID`.
    func respond(requestID: String, body: [UInt8]) async throws(RuntimeAPIError)

    /// Streams the response for `requestID` (`Lambda-Runtime-Function-Response-Mode: streaming`,
    /// chunked): the prelude, then the body as `response.body` writes it. A body that ends
    /// `.failed` after its first byte is reported in the `Lambda-Runtime-Function-Error-Type` and
    /// `Lambda-Runtime-Function-Error-Body` trailers; the Runtime API answers once the stream is over.
    func respond(requestID: String, streaming response: StreamedResponse) async throws(RuntimeAPIError)

    /// Starts the streamed response for `requestID` now, before the handler knows what it will stream:
    /// the POST's head (`contentType`) goes out while the handler still waits (for its upstream), and
    /// `StartedStream.complete` writes the prelude and the body later. A client that cannot start early
    /// posts the whole response at `complete` (the default).
    func startStreaming(requestID: String, contentType: String) throws(RuntimeAPIError) -> any StartedStream

    /// Posts a function error for `requestID` (`/invocation/{id}/error`).
    func fail(requestID: String, error: FunctionError) async throws(RuntimeAPIError)

    /// Posts an initialisation error (`/runtime/init/error`); the process exits afterwards.
    func initError(_ error: FunctionError) async throws(RuntimeAPIError)
}

/// One event as `/next` delivered it: the body and the response headers, names lower-cased.
package struct RawInvocation: Sendable {
    package var headers: [String: String]
    package var body: [UInt8]

    package init(headers: [String: String], body: [UInt8]) {
        var lowered: [String: String] = [:]
        for (name, value) in headers { lowered[name.lowercased()] = value }
        self.headers = lowered
        self.body = body
    }
}

/// The error document the Runtime API accepts: `{"errorMessage": …, "errorType": …}`; `errorType` is
/// also sent as `Lambda-Runtime-Function-Error-Type`.
package struct FunctionError: Sendable, Hashable {
    package var type: String
    package var message: String

    package init(type: String, message: String) {
        self.type = type
        self.message = message
    }
}

/// A streamed response whose POST was started before its content was known (`startStreaming`).
package protocol StartedStream: Sendable {
    /// Writes `response`'s prelude and body into the started POST, ends it (with the error trailers when the
    /// body fails), and waits for the Runtime API's answer. The content type is the one given at the start.
    func complete(_ response: StreamedResponse) async throws(RuntimeAPIError)
}

extension RuntimeAPIClient {
    package func startStreaming(requestID: String, contentType: String) throws(RuntimeAPIError) -> any StartedStream {
        DeferredStream(client: self, requestID: requestID, contentType: contentType)
    }
}

/// The default `startStreaming`: nothing goes out before `complete`, which posts the whole response with the
/// started content type.
package struct DeferredStream<Client: RuntimeAPIClient>: StartedStream {
    let client: Client
    let requestID: String
    let contentType: String

    package init(client: Client, requestID: String, contentType: String) {
        self.client = client
        self.requestID = requestID
        self.contentType = contentType
    }

    package func complete(_ response: StreamedResponse) async throws(RuntimeAPIError) {
        var response = response
        response.contentType = contentType
        try await client.respond(requestID: requestID, streaming: response)
    }
}
