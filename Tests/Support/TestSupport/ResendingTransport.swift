public import HTTPClient
internal import Synchronization

/// A transport that loses the first answer of chosen AWS JSON operations and sends the request again,
/// exactly what an SDK does when a write commits but its response is lost (docs/resend-harness.md).
///
/// Each request whose `X-Amz-Target` names one of `operations` (`DynamoDB_20120810.UpdateItem` →
/// `UpdateItem`) is sent through `base`; when an answer arrives (any status: the write has been evaluated),
/// it is dropped and the same request is sent again, and the client sees only the second answer. A send
/// that fails without an answer is not repeated. Every other request passes through untouched.
///
/// Installed beneath the client (the `HTTPTransport` seam), so the product's retry loop carries no test knob:
/// ```swift
/// let resending = ResendingTransport(resending: ["UpdateItem"])
/// let client = DynamoDBClient(configuration: configuration, transport: resending, random: SecureRandom())
/// // ... every UpdateItem now reaches the table twice; resending.resent counts the resends.
/// ```
public final class ResendingTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let operations: Mutex<Set<String>>
    private let count = Atomic<Int>(0)
    private let hold: Duration

    /// - Parameters:
    ///   - base: where requests go (`CurlTransport()` for a real endpoint).
    ///   - operations: AWS JSON operation names whose every request is sent twice.
    ///   - hold: how long the resend waits after the first answer arrived (so that other writers can land on
    ///     the row in between, as a slow SDK retry lets them); none by default.
    public init(
        _ base: any HTTPTransport = CurlTransport(),
        resending operations: Set<String>,
        holdingResendFor hold: Duration = .zero
    ) {
        self.base = base
        self.operations = Mutex(operations)
        self.hold = hold
    }

    /// Changes the operations that are resent from now on.
    public func resend(_ operations: Set<String>) { self.operations.withLock { $0 = operations } }

    /// How many requests were sent a second time.
    public var resent: Int { count.load(ordering: .sequentiallyConsistent) }

    /// Starts counting resends from zero again.
    public func resetCount() { count.store(0, ordering: .sequentiallyConsistent) }

    /// The AWS JSON operation a request calls (`UpdateItem`), from its `X-Amz-Target`; nil for other traffic.
    public static func operation(of request: HTTPRequest) -> String? {
        guard let target = request.headers.first(where: { $0.name.lowercased() == "x-amz-target" })?.value,
            let dot = target.lastIndex(of: ".")
        else { return nil }
        return String(target[target.index(after: dot)...])
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let operation = Self.operation(of: request), operations.withLock({ $0.contains(operation) }) else {
            return try await base.send(request)
        }
        _ = try await base.send(request)  // answered: the write has been evaluated; its answer is "lost"
        count.add(1, ordering: .sequentiallyConsistent)
        if hold > .zero { try await Task.sleep(for: hold) }
        return try await base.send(request)
    }
}
