package import HTTPClient
internal import Synchronization
package import TestSupport

/// The app's real transport (`CurlTransport`) with its DynamoDB traffic counted and, when asked, resent
/// through a `ResendingTransport` (a request sent, its answer dropped, sent again: what an SDK does when a
/// write commits but its response is lost), beneath the product's wiring so no test knob enters it.
package final class DynamoTrafficTransport: HTTPTransport {
    private let resending: ResendingTransport
    private let sent = Mutex<[String]>([])

    /// - Parameter resending: DynamoDB operations (`UpdateItem`, `PutItem`, …) whose every request is sent twice.
    package init(base: any HTTPTransport = CurlTransport(), resending: Set<String> = []) {
        self.resending = ResendingTransport(base, resending: resending)
    }

    /// Changes the operations that are resent from now on.
    package func resend(_ operations: Set<String>) { resending.resend(operations) }

    /// Every DynamoDB operation sent so far, in order (a resend counts once).
    package var operations: [String] { sent.withLock { $0 } }

    /// How many requests were sent a second time.
    package var resent: Int { resending.resent }

    /// Forgets the recorded operations and resends.
    package func resetCounts() {
        sent.withLock { $0 = [] }
        resending.resetCount()
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let target = request.headers.first(where: { $0.name.lowercased() == "x-amz-target" })?.value,
            target.hasPrefix("DynamoDB_"), let operation = ResendingTransport.operation(of: request)
        {
            sent.withLock { $0.append(operation) }
        }
        return try await resending.send(request)
    }
}
