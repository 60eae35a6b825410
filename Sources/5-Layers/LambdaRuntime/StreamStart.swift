internal import Synchronization

/// Lets a handler start its streamed response's POST while it still waits for what it will stream (an
/// upstream's first byte): the run loop sets one for each invocation (`current`), the handler calls
/// `start()` at the point where a stream is decided on (a streamed route's admitted call), and whatever it
/// answers afterwards goes out through that POST. The POST's head, its connection's thread and the Runtime
/// API's reading of it are then done while the upstream works, not after its answer.
///
/// Once started, the answer must be streamed: `APIGatewayLambdaHandler` then streams every answer (a
/// failure before the first byte is a one-chunk stream with its status in the prelude, as through a
/// Function URL), and a handler that answers buffered or throws ends the started POST with error trailers.
package final class StreamStart: Sendable {
    /// The invocation's, inside the run loop's call of the handler; nil elsewhere.
    @TaskLocal package static var current: StreamStart?

    private let open: @Sendable () throws(RuntimeAPIError) -> any StartedStream
    private let state = Mutex<Result<any StartedStream, RuntimeAPIError>?>(nil)

    /// - Parameter open: starts the POST (`RuntimeAPIClient.startStreaming`); called at most once.
    package init(_ open: @escaping @Sendable () throws(RuntimeAPIError) -> any StartedStream) {
        self.open = open
    }

    /// Starts the POST now (the first call; later calls do nothing).
    package func start() {
        let open = self.open
        state.withLock { state in
            guard state == nil else { return }
            state = Result { () throws(RuntimeAPIError) -> any StartedStream in try open() }
        }
    }

    /// Whether `start()` was called: the answer must then be streamed.
    package var isStarted: Bool { state.withLock { $0 != nil } }

    /// The started POST, or why it could not start; nil when `start()` was not called.
    var started: Result<any StartedStream, RuntimeAPIError>? { state.withLock { $0 } }
}
