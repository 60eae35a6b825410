internal import AttestCore
internal import Synchronization

/// `HTTPTransport.send(_:before:)` for a transport that does not bound itself by a deadline: sends, but
/// returns no later than the deadline, whatever the transport does.
///
/// A transport enforces the request's own timeout, but a transfer that starts late (a busy thread pool)
/// or a stall the transport does not time can still outlast the invocation. The send runs in its own task;
/// if the deadline comes first, the caller gets `nil` at once and the orphaned send finishes (and is
/// dropped) in the background, bounded by its own timeout. (`CurlTransport` needs none of this: libcurl's
/// own timer is set from the deadline when the transfer starts.)
enum DeadlineRace {
    /// How long the deadline timer sleeps at a time.
    static let nap: Duration = .milliseconds(250)

    static func send(
        _ request: HTTPRequest,
        through transport: any HTTPTransport,
        deadline: Deadline
    ) async -> Result<HTTPResponse, any Error>? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result<HTTPResponse, any Error>?, Never>) in
            let once = ResumeOnce(continuation)
            let timer = Task {
                // Short naps, not one sleep to the deadline: on Linux a cancelled sleep keeps its timer
                // (and the task) allocated until the time it was due, so a 29 s sleep per request held
                // memory for 29 s after every answer (make bench: +13 MiB over 10,000 calls). A nap is
                // abandoned within `nap` of the cancel.
                while !Task.isCancelled, deadline.remaining > .zero {
                    try? await Task.sleep(for: min(Self.nap, deadline.remaining))
                }
                if !Task.isCancelled { once.resume(nil) }  // a no-op when the send answered first
            }
            Task {
                let result: Result<HTTPResponse, any Error>
                do {
                    result = .success(try await transport.send(request))
                } catch {
                    result = .failure(error)
                }
                once.resume(result)
                timer.cancel()  // no sleeping task outlives the call it guarded
            }
        }
    }

    /// Resumes a continuation exactly once, from whichever side finishes first.
    private final class ResumeOnce: Sendable {
        private let continuation: Mutex<CheckedContinuation<Result<HTTPResponse, any Error>?, Never>?>

        init(_ continuation: CheckedContinuation<Result<HTTPResponse, any Error>?, Never>) {
            self.continuation = Mutex(continuation)
        }

        /// - Returns: true when this call resumed the continuation.
        @discardableResult
        func resume(_ value: Result<HTTPResponse, any Error>?) -> Bool {
            guard
                let continuation = continuation.withLock({ state in
                    defer { state = nil }
                    return state
                })
            else {
                return false
            }
            continuation.resume(returning: value)
            return true
        }
    }
}
