#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Reads the server's answers (docs/api.md section 2): a refusal is recognised by its status and its
/// `{"error": code}` body together; any other answer of a metered route is the provider's.
enum Answers {
    /// What one metered request came to, for the call's loop.
    enum Step: Sendable {
        case done(Outcome)
        /// Worth another attempt under the retry policy; `outcome` if the policy gives up.
        case retry(Outcome, retryAfter: Double?)
        /// `403 attestation_required`.
        case refused
    }

    /// The codes that name a bug on the app's side, with their statuses.
    static let invalidStatuses: Set<Int> = [400, 404, 405, 413]
    static let invalidCodes: Set<String> = [
        "invalid_device_id", "invalid_request", "request_too_large", "not_found", "method_not_allowed",
    ]

    /// A metered route's answer whose head arrived.
    static func metered(
        _ response: TransportResponse,
        streamed: Bool,
        configuration: Configuration
    ) async -> Step {
        let status = response.status
        let quota = quotaRemaining(response)
        if streamed, (200..<300).contains(status), isEventStream(response.header("Content-Type")) {
            let parser = EventStreamParser(
                maxLineBytes: configuration.maxEventLineBytes,
                maxEventBytes: configuration.maxEventBytes
            )
            return .done(.streamed(ServerSentEvents(body: response.body, parser: parser), quotaRemaining: quota))
        }
        let body: [UInt8]
        do {
            body = try await response.body.collect(limit: configuration.maxResponseBytes)
        } catch {
            // The head arrived, so the call was spent and maybe billed: never repeated by itself.
            return .done(.networkFailure(error))
        }
        let retryAfter = seconds(response.header(WireHeader.retryAfter))
        let code = status >= 400 ? errorCode(body) : nil
        switch (status, code) {
        case (403, "attestation_required"): return .refused
        case (403, "device_blocked"): return .done(.deviceBlocked)
        case (429, "quota_exhausted"): return .done(.quotaExhausted(retryAfter: retryAfter, quotaRemaining: quota))
        case (503, "daily_budget_exhausted"): return .done(.dailyBudgetExhausted(retryAfter: retryAfter))
        // Fail closed before the provider: nothing was spent (docs/api.md section 7).
        case (503, "unavailable"):
            return .retry(.serviceUnavailable(status: status, retryAfter: retryAfter), retryAfter: retryAfter)
        case (502, "upstream_unavailable"), (504, "upstream_unavailable"):
            return .done(.upstreamUnavailable(status: status, quotaRemaining: quota))
        case (let status, let code?) where invalidStatuses.contains(status) && invalidCodes.contains(code):
            return .done(.invalidRequest(status: status, code: code))
        // Lambda's own 429 (no `error` member): the stream function's executions are all taken, and the
        // call was refused before the function ran (docs/api.md, "Streamed routes"): nothing spent.
        case (429, nil):
            return .retry(.serviceUnavailable(status: status, retryAfter: retryAfter), retryAfter: retryAfter)
        // Not one of AttestGate's answers: the platform in front failed (a crashed or timed-out
        // invocation). The call may have reached the provider, so it is not repeated.
        case (let status, _) where status >= 500:
            return .done(.serviceUnavailable(status: status, retryAfter: retryAfter))
        default:
            let answer = Answer(
                status: status,
                contentType: response.header("Content-Type"),
                body: body,
                quotaRemaining: quota
            )
            return .done(.served(answer))
        }
    }

    /// `X-Quota-Remaining` as a number.
    static func quotaRemaining(_ response: TransportResponse) -> Int? {
        guard let text = response.header(WireHeader.quotaRemaining), !text.isEmpty, text.utf8.count <= 9,
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int(text)
    }

    /// A header of decimal seconds (`Retry-After`, a challenge's expiry), or nil.
    static func seconds(_ text: String?) -> Double? {
        guard let text, !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Double(text)
    }

    /// The `error` of a `{"error": code}` body (exactly that member), or nil for any other body.
    static func errorCode(_ body: [UInt8]) -> String? {
        guard !body.isEmpty, body.count <= 1024,
            let members = try? JSONDecoder().decode([String: String].self, from: Data(body)), members.count == 1
        else { return nil }
        return members["error"]
    }

    /// `POST /v1/attest/challenge`'s `{"challenge","expiresAt"}`.
    static func issuedChallenge(_ body: [UInt8]) -> Challenge? {
        struct Issued: Decodable {
            let challenge: String
            let expiresAt: Int64
        }
        guard let issued = try? JSONDecoder().decode(Issued.self, from: Data(body)),
            Challenge.isWellFormed(issued.challenge)
        else { return nil }
        return Challenge(value: issued.challenge, expiresAt: issued.expiresAt)
    }

    /// `POST /v1/attest/keys`'s `{"binding": …}`.
    static func binding(_ body: [UInt8]) -> String? {
        struct Bound: Decodable { let binding: String }
        return (try? JSONDecoder().decode(Bound.self, from: Data(body)))?.binding
    }

    private static func isEventStream(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        return contentType.lowercased().drop(while: { $0 == " " }).hasPrefix("text/event-stream")
    }
}
