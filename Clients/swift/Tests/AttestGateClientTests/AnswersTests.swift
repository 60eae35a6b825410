import Testing

@testable import AttestGateClient

/// Each documented answer of a metered route (docs/api.md section 2) as the step the call's loop takes.
@Suite struct AnswersTests {
    func step(_ status: Int, _ body: String, _ headers: [HTTPHeader] = []) async -> Answers.Step {
        let response = TransportResponse(status: status, headers: headers, body: ResponseBody(bytes: Array(body.utf8)))
        return await Answers.metered(response, streamed: false, configuration: Configuration(baseURL: "https://x"))
    }

    func outcome(_ status: Int, _ body: String, _ headers: [HTTPHeader] = []) async -> Outcome? {
        if case .done(let outcome) = await step(status, body, headers) { return outcome }
        return nil
    }

    @Test func refusalsAreTypedByStatusAndCodeTogether() async {
        let retryAfter = [HTTPHeader("Retry-After", "3600"), HTTPHeader("X-Quota-Remaining", "0")]
        guard case .quotaExhausted(3600, 0)? = await outcome(429, #"{"error":"quota_exhausted"}"#, retryAfter) else {
            Issue.record("quota")
            return
        }
        guard
            case .dailyBudgetExhausted(120)? = await outcome(
                503,
                #"{"error":"daily_budget_exhausted"}"#,
                [HTTPHeader("retry-after", "120")]
            )
        else {
            Issue.record("budget")
            return
        }
        guard case .deviceBlocked? = await outcome(403, #"{"error":"device_blocked"}"#) else {
            Issue.record("blocked")
            return
        }
        guard
            case .upstreamUnavailable(504, 3)? = await outcome(
                504,
                #"{"error":"upstream_unavailable"}"#,
                [HTTPHeader("X-Quota-Remaining", "3")]
            )
        else {
            Issue.record("upstream")
            return
        }
        guard case .invalidRequest(413, "request_too_large")? = await outcome(413, #"{"error":"request_too_large"}"#)
        else {
            Issue.record("invalid")
            return
        }
        guard case .refused = await step(403, #"{"error":"attestation_required"}"#) else {
            Issue.record("refused")
            return
        }
    }

    @Test func onlyFailuresThatSpentNothingAreRetried() async {
        guard case .retry(.serviceUnavailable(503, nil), nil) = await step(503, #"{"error":"unavailable"}"#) else {
            Issue.record("503 unavailable")
            return
        }
        // Lambda's 429 on a streamed route has no `error` member: refused before the function ran.
        guard
            case .retry(.serviceUnavailable(429, 1), 1) = await step(
                429,
                #"{"message":"Rate Exceeded."}"#,
                [HTTPHeader("Retry-After", "1")]
            )
        else {
            Issue.record("lambda 429")
            return
        }
        // A platform 500 may come after the provider was called: not repeated.
        guard case .serviceUnavailable(500, nil)? = await outcome(500, "Internal Server Error") else {
            Issue.record("platform 500")
            return
        }
    }

    @Test func anythingElseIsTheProvidersAnswerPassedOn() async {
        let headers = [HTTPHeader("Content-Type", "application/json"), HTTPHeader("X-Quota-Remaining", "7")]
        guard case .served(let answer)? = await outcome(400, #"{"error":{"message":"bad model"}}"#, headers) else {
            Issue.record("a provider's 400")
            return
        }
        #expect(answer.status == 400 && answer.quotaRemaining == 7 && answer.contentType == "application/json")
        // A body of more members than `error` is not one of ours.
        guard case .served? = await outcome(403, #"{"error":"attestation_required","more":"x"}"#) else {
            Issue.record("two members")
            return
        }
    }
}
