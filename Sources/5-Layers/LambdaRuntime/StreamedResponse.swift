internal import AttestCore

/// What a handler answers: one buffered payload, or a body streamed while it is produced.
package enum LambdaResponse: Sendable {
    case buffered([UInt8])
    case streamed(StreamedResponse)
}

/// Writes the body of one streamed response; each call's bytes leave as one chunk.
package protocol ResponseStreamWriter: Sendable {
    /// Sends `bytes`; waits while the previous bytes are still unsent (bounded memory).
    /// - Throws: `RuntimeAPIError` when the Runtime API ended the response (it then answered or failed).
    func write(_ bytes: [UInt8]) async throws(RuntimeAPIError)

    /// The same body written from a thread of the producer's own, blocking it instead of suspending a
    /// task; nil when this writer has none (the default: then only `write`).
    var blocking: (any BlockingStreamWriter)? { get }
}

extension ResponseStreamWriter {
    package var blocking: (any BlockingStreamWriter)? { nil }
}

/// Writes into a streamed response from a thread that may block (a transfer's own, never Swift's
/// cooperative pool); each call's bytes are queued after everything written before, with either writer.
package protocol BlockingStreamWriter: Sendable {
    /// Queues a copy of `bytes`, then blocks while the previous bytes are still unsent, until `deadline`.
    /// - Returns: nil once queued; else why not.
    func write(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant) -> BlockingWriteFailure?
}

/// Why a `BlockingStreamWriter` did not take the bytes.
package enum BlockingWriteFailure: Sendable, Hashable {
    /// The Runtime API ended the response.
    case closed(RuntimeAPIError)
    /// The previous bytes were still unsent at the deadline.
    case deadline
}

/// How a streamed body ended.
package enum StreamCompletion: Sendable, Hashable {
    /// Every byte was produced.
    case finished
    /// The body stopped after some bytes were sent: reported in the
    /// `Lambda-Runtime-Function-Error-Type` / `-Error-Body` trailers.
    case failed(FunctionError)
}

/// A response streamed through the Runtime API (`Lambda-Runtime-Function-Response-Mode: streaming`).
package struct StreamedResponse: Sendable {
    /// The content type of the posted stream; for HTTP integrations (Function URLs, API Gateway
    /// streaming) `application/vnd.awslambda.http-integration-response`, with `prelude` first.
    package var contentType: String
    /// Bytes sent before the body: the HTTP integration prelude (`httpIntegrationPrelude`).
    package var prelude: [UInt8]
    /// Produces the body through the writer, and says how it ended.
    package var body: @Sendable (any ResponseStreamWriter) async -> StreamCompletion
    /// By when the Runtime API must have taken the whole response: past it the POST is given up (within
    /// about a second), so a client that stopped reading cannot hold the function until Lambda's timeout.
    /// The run loop never lets it pass the invocation's deadline. nil: the invocation's deadline.
    package var sendBy: ContinuousClock.Instant?

    package init(
        contentType: String,
        prelude: [UInt8] = [],
        sendBy: ContinuousClock.Instant? = nil,
        body: @escaping @Sendable (any ResponseStreamWriter) async -> StreamCompletion
    ) {
        self.contentType = contentType
        self.prelude = prelude
        self.sendBy = sendBy
        self.body = body
    }

    /// A streamed response not taken this long before the invocation's deadline is given up (libcurl sees
    /// it within about a second): the runtime is then still alive when Lambda's deadline comes.
    package static let abandonMargin: Duration = .milliseconds(1500)

    /// The content type Lambda reads as "a JSON prelude, eight NUL bytes, then the body".
    package static let httpIntegrationContentType = "application/vnd.awslambda.http-integration-response"

    /// A streamed HTTP response (Function URL or API Gateway response streaming): status, headers and
    /// cookies go in the prelude `{"statusCode":…,"headers":{…},"cookies":[…]}` followed by 8 NUL bytes.
    package static func http(
        status: Int,
        headers: [(String, String)],
        cookies: [String] = [],
        sendBy: ContinuousClock.Instant? = nil,
        body: @escaping @Sendable (any ResponseStreamWriter) async -> StreamCompletion
    ) -> StreamedResponse {
        StreamedResponse(
            contentType: httpIntegrationContentType,
            prelude: httpIntegrationPrelude(status: status, headers: headers, cookies: cookies),
            sendBy: sendBy,
            body: body
        )
    }

    /// The prelude bytes: the JSON document, then eight NUL bytes.
    package static func httpIntegrationPrelude(status: Int, headers: [(String, String)], cookies: [String]) -> [UInt8] {
        var single: [String: JSONValue] = [:]
        for (name, value) in headers { single[name] = .string(value) }
        let document = JSONValue.object([
            "statusCode": .int(Int64(status)),
            "headers": .object(single),
            "cookies": .array(cookies.map(JSONValue.string)),
        ])
        return document.serializedBytes + [UInt8](repeating: 0, count: 8)
    }
}
