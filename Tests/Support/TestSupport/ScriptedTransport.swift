public import HTTPClient
internal import Synchronization

/// A fake `HTTPTransport` that answers from a script and records every request it was given.
///
/// Each `send` takes the next step of the script (the last step repeats once the script runs out):
/// a response, or a thrown `HTTPError`.
public final class ScriptedTransport: HTTPTransport {
    public enum Step: Sendable {
        case respond(HTTPResponse)
        case fail(HTTPError)
    }

    private let state: Mutex<(steps: [Step], sent: [HTTPRequest])>

    public init(_ steps: [Step]) {
        precondition(!steps.isEmpty, "a script needs at least one step")
        self.state = Mutex((steps, []))
    }

    /// Every request sent so far, in order.
    public var requests: [HTTPRequest] { state.withLock { $0.sent } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let step = state.withLock { state -> Step in
            state.sent.append(request)
            return state.steps.count > 1 ? state.steps.removeFirst() : state.steps[0]
        }
        switch step {
        case .respond(let response): return response
        case .fail(let error): throw error
        }
    }
}
