import LambdaRuntime
import Synchronization

/// An in-memory Runtime API: queued `/next` answers, recorded posts.
final class FakeRuntimeAPIClient: RuntimeAPIClient {
    enum Post: Equatable {
        case response(requestID: String, body: [UInt8])
        case error(requestID: String, error: FunctionError)
        case initError(FunctionError)
    }

    private struct State {
        var queue: [Result<RawInvocation, RuntimeAPIError>] = []
        var posts: [Post] = []
        var postFailure: RuntimeAPIError?
    }

    private let state = Mutex(State())

    init(_ answers: [Result<RawInvocation, RuntimeAPIError>], postFailure: RuntimeAPIError? = nil) {
        state.withLock {
            $0.queue = answers
            $0.postFailure = postFailure
        }
    }

    var posts: [Post] { state.withLock { $0.posts } }

    func next() async throws(RuntimeAPIError) -> RawInvocation {
        let answer = state.withLock { state -> Result<RawInvocation, RuntimeAPIError> in
            state.queue.isEmpty ? .failure(RuntimeAPIError(.fatal, detail: "queue empty")) : state.queue.removeFirst()
        }
        return try answer.get()
    }

    func respond(requestID: String, body: [UInt8]) async throws(RuntimeAPIError) {
        try record(.response(requestID: requestID, body: body))
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
