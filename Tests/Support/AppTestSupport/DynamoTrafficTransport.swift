package import HTTPClient
internal import Synchronization

/// The app's real transport (`CurlTransport`) with its DynamoDB traffic counted and, when asked,
/// resent: a resent request is sent, its answer dropped, and sent again, exactly what an SDK does when a
/// write commits but its response is lost (docs/dynamodb.md, own writes; the same effect as the DynamoDB
/// client's `ResendHook`, applied beneath the product's wiring so no test knob enters it).
package final class DynamoTrafficTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let resend: Mutex<Set<String>>
    private let state = Mutex<(operations: [String], resent: Int)>(([], 0))
    private let refusing = Mutex<(@Sendable (String, [UInt8]) -> Bool)?>(nil)
    private let pending = Mutex<(marker: String, resend: Bool, between: @Sendable () async throws -> Void)?>(nil)

    /// - Parameter resending: DynamoDB operations (`UpdateItem`, `PutItem`, …) whose every request is sent twice.
    package init(base: any HTTPTransport = CurlTransport(), resending: Set<String> = []) {
        self.base = base
        self.resend = Mutex(resending)
    }

    /// Changes the operations that are resent from now on.
    package func resend(_ operations: Set<String>) { resend.withLock { $0 = operations } }

    /// Every DynamoDB operation sent so far, in order (a resend counts once).
    package var operations: [String] { state.withLock { $0.operations } }

    /// How many requests were sent a second time.
    package var resent: Int { state.withLock { $0.resent } }

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

    /// Forgets the recorded operations.
    package func resetCounts() { state.withLock { $0 = ([], 0) } }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let target = request.headers.first { $0.name.lowercased() == "x-amz-target" }?.value
        guard let target, target.hasPrefix("DynamoDB_") else { return try await base.send(request) }
        let operation = String(target.split(separator: ".").last ?? "")
        if let refuse = refusing.withLock({ $0 }), refuse(operation, request.body) {
            let body = #"{"__type":"com.amazon.coral.validation#ValidationException","message":"refused by the test"}"#
            return HTTPResponse(
                status: 400,
                headers: [HTTPHeader("Content-Type", "application/x-amz-json-1.0")],
                body: Array(body.utf8)
            )
        }
        let again = resend.withLock { $0.contains(operation) }
        state.withLock {
            $0.operations.append(operation)
            if again { $0.resent += 1 }
        }
        let text = String(decoding: request.body, as: UTF8.self)
        let interleaved = pending.withLock { pending -> (resend: Bool, between: @Sendable () async throws -> Void)? in
            guard let (marker, resend, between) = pending, text.contains(marker) else { return nil }
            pending = nil
            return (resend, between)
        }
        if let (resend, between) = interleaved {
            if resend { _ = try await base.send(request) }
            try await between()
            if resend { state.withLock { $0.resent += 1 } }
        } else if again {
            _ = try await base.send(request)
        }
        return try await base.send(request)
    }
}
