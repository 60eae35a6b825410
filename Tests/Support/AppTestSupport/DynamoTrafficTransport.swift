package import HTTPClient
internal import Synchronization
internal import TestSupport

/// The app's real transport (`CurlTransport`) with its DynamoDB traffic counted and, when asked, resent
/// through a `ResendingTransport` (a request sent, its answer dropped, sent again: what an SDK does when a
/// write commits but its response is lost), beneath the product's wiring so no test knob enters it. It can
/// also refuse chosen requests and let another writer land between a write and its resend (`interleave`).
package final class DynamoTrafficTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let resending: ResendingTransport
    private let sent = Mutex<[String]>([])
    private let interleavedResends = Mutex(0)
    private let refusing = Mutex<(@Sendable (String, [UInt8]) -> Bool)?>(nil)
    private let pending = Mutex<(marker: String, resend: Bool, between: @Sendable () async throws -> Void)?>(nil)

    /// - Parameter resending: DynamoDB operations (`UpdateItem`, `PutItem`, …) whose every request is sent twice.
    package init(base: any HTTPTransport = CurlTransport(), resending: Set<String> = []) {
        self.base = base
        self.resending = ResendingTransport(base, resending: resending)
    }

    /// Changes the operations that are resent from now on.
    package func resend(_ operations: Set<String>) { resending.resend(operations) }

    /// Every DynamoDB operation sent so far, in order (a resend counts once).
    package var operations: [String] { sent.withLock { $0 } }

    /// How many requests were sent a second time (by the resend, or by an interleave).
    package var resent: Int { resending.resent + interleavedResends.withLock { $0 } }

    /// From now on, answers every DynamoDB request for which `predicate(operation, body)` holds with a
    /// `400 ValidationException` (not retried) without sending it; nil stops refusing.
    package func refuse(when predicate: (@Sendable (String, [UInt8]) -> Bool)?) {
        refusing.withLock { $0 = predicate }
    }

    /// Once: the next DynamoDB request whose body contains `marker` is sent, its answer is held back while
    /// `between` runs (another call's requests pass untouched), and it is sent again; the caller gets the
    /// second answer. This is another writer landing between a write and its resend after a lost answer.
    /// With `resend: false`, `between` runs before the request's only send (another writer landing first).
    package func interleave(
        whenBodyContains marker: String,
        resend: Bool = true,
        _ between: @escaping @Sendable () async throws -> Void
    ) {
        pending.withLock { $0 = (marker, resend, between) }
    }

    /// Forgets the recorded operations and resends.
    package func resetCounts() {
        sent.withLock { $0 = [] }
        resending.resetCount()
        interleavedResends.withLock { $0 = 0 }
    }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let target = request.headers.first(where: { $0.name.lowercased() == "x-amz-target" })?.value,
            target.hasPrefix("DynamoDB_"), let operation = ResendingTransport.operation(of: request)
        else { return try await base.send(request) }
        if let refuse = refusing.withLock({ $0 }), refuse(operation, request.body) {
            let body = #"{"__type":"com.amazon.coral.validation#ValidationException","message":"refused by the test"}"#
            return HTTPResponse(
                status: 400,
                headers: [HTTPHeader("Content-Type", "application/x-amz-json-1.0")],
                body: Array(body.utf8)
            )
        }
        sent.withLock { $0.append(operation) }
        let text = String(decoding: request.body, as: UTF8.self)
        let interleaved = pending.withLock { pending -> (resend: Bool, between: @Sendable () async throws -> Void)? in
            guard let (marker, resend, between) = pending, text.contains(marker) else { return nil }
            pending = nil
            return (resend, between)
        }
        guard let (resend, between) = interleaved else { return try await resending.send(request) }
        if resend { _ = try await base.send(request) }
        try await between()
        if resend { interleavedResends.withLock { $0 += 1 } }
        return try await base.send(request)
    }
}
