import LambdaRuntime
import Synchronization

/// An in-memory Runtime API: queued `/next` answers, recorded posts.
final class FakeRuntimeAPIClient: RuntimeAPIClient {
    enum Post: Equatable {
        case response(requestID: String, body: [UInt8])
        /// A streamed response: its content type, the chunks as written (prelude first) and its end.
        case streamed(requestID: String, contentType: String, chunks: [[UInt8]], completion: StreamCompletion)
        /// `startStreaming`: the POST's head went out (its prelude and body follow as a `streamed` post).
        case started(requestID: String, contentType: String)
        case error(requestID: String, error: FunctionError)
        case initError(FunctionError)
    }

    private struct State {
        var queue: [Result<RawInvocation, RuntimeAPIError>] = []
        var posts: [Post] = []
        var postFailure: RuntimeAPIError?
        /// Each streamed response's `sendBy`, in order.
        var sendBys: [ContinuousClock.Instant?] = []
    }

    private let state = Mutex(State())

    init(
        _ answers: [Result<RawInvocation, RuntimeAPIError>],
        postFailure: RuntimeAPIError? = nil,
        acceptedChunks: Int = .max
    ) {
        self.acceptedChunks = acceptedChunks
        state.withLock {
            $0.queue = answers
            $0.postFailure = postFailure
        }
    }

    var posts: [Post] { state.withLock { $0.posts } }
    var sendBys: [ContinuousClock.Instant?] { state.withLock { $0.sendBys } }

    func next() async throws(RuntimeAPIError) -> RawInvocation {
        let answer = state.withLock { state -> Result<RawInvocation, RuntimeAPIError> in
            state.queue.isEmpty ? .failure(RuntimeAPIError(.fatal, detail: "queue empty")) : state.queue.removeFirst()
        }
        return try answer.get()
    }

    func respond(requestID: String, body: [UInt8]) async throws(RuntimeAPIError) {
        try record(.response(requestID: requestID, body: body))
    }

    /// Runs the body against an in-memory writer that keeps every chunk; `acceptedChunks` makes the
    /// writer refuse (`.streamClosed`) after that many, as a POST that ended would.
    func respond(requestID: String, streaming response: StreamedResponse) async throws(RuntimeAPIError) {
        state.withLock { $0.sendBys.append(response.sendBy) }
        let writer = RecordingStreamWriter(limit: acceptedChunks)
        var completion = StreamCompletion.finished
        do {
            if !response.prelude.isEmpty { try await writer.write(response.prelude) }
            completion = await response.body(writer)
        } catch {
            completion = .failed(FunctionError(type: "Runtime.StreamClosed", message: error.reason.slug))
        }
        try record(
            .streamed(
                requestID: requestID,
                contentType: response.contentType,
                chunks: writer.chunks,
                completion: completion
            )
        )
    }

    let acceptedChunks: Int

    /// Records the start, then posts the whole response at `complete` with the started content type.
    func startStreaming(requestID: String, contentType: String) throws(RuntimeAPIError) -> any StartedStream {
        try record(.started(requestID: requestID, contentType: contentType))
        return DeferredStream(client: self, requestID: requestID, contentType: contentType)
    }

    func fail(requestID: String, error: FunctionError) async throws(RuntimeAPIError) {
        try record(.error(requestID: requestID, error: error))
    }

    func initError(_ error: FunctionError) async throws(RuntimeAPIError) {
        try record(.initError(error))
    }

    private func record(_ post: Post) throws(RuntimeAPIError) {
        let failure = state.withLock { state -> RuntimeAPIError? in
            state.posts.append(post)
            return state.postFailure
        }
        if let failure { throw failure }
    }
}

func invocation(
    _ id: String?,
    deadline: String? = "1900000000000",
    trace: String? = nil,
    body: String = "{}"
)
    -> Result<RawInvocation, RuntimeAPIError>
{
    var headers: [String: String] = ["Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:eu-west-1:1:function:f"]
    if let id { headers["Lambda-Runtime-Aws-Request-Id"] = id }
    if let deadline { headers["Lambda-Runtime-Deadline-Ms"] = deadline }
    if let trace { headers["Lambda-Runtime-Trace-Id"] = trace }
    return .success(RawInvocation(headers: headers, body: Array(body.utf8)))
}

/// Keeps every chunk written; refuses writes past `limit`.
final class RecordingStreamWriter: ResponseStreamWriter {
    private let state = Mutex<[[UInt8]]>([])
    let limit: Int

    init(limit: Int = .max) { self.limit = limit }

    var chunks: [[UInt8]] { state.withLock { $0 } }

    func write(_ bytes: [UInt8]) async throws(RuntimeAPIError) {
        let accepted = state.withLock { chunks -> Bool in
            guard chunks.count < limit else { return false }
            chunks.append(bytes)
            return true
        }
        if !accepted { throw RuntimeAPIError(.streamClosed) }
    }
}
