package import AttestCore
package import FoundationEssentials

/// What the runtime knows about one invocation, from the headers of `GET /next`.
package struct InvocationContext: Sendable {
    /// `Lambda-Runtime-Aws-Request-Id`.
    package let requestID: String
    /// `Lambda-Runtime-Deadline-Ms`: when Lambda stops the function (wall-clock time).
    package let deadline: Date
    /// `Lambda-Runtime-Invoked-Function-Arn` (empty when absent).
    package let invokedFunctionARN: String
    /// `Lambda-Runtime-Trace-Id`, also exported as `_X_AMZN_TRACE_ID` for this invocation.
    package let traceID: String?
    /// The logger for this invocation: every line carries `function_request_id`.
    package let logger: Logger

    package init(requestID: String, deadline: Date, invokedFunctionARN: String, traceID: String?, logger: Logger) {
        self.requestID = requestID
        self.deadline = deadline
        self.invokedFunctionARN = invokedFunctionARN
        self.traceID = traceID
        self.logger = logger.with("function_request_id", .string(requestID))
    }

    /// Reads the context from `/next`'s headers.
    /// - Throws: `RuntimeAPIError` `.missingRequestID` or `.missingDeadline` (absent, not a number, or
    ///   not a plausible epoch in milliseconds).
    package init(invocation: RawInvocation, logger: Logger) throws(RuntimeAPIError) {
        guard let requestID = invocation.headers[AmazonHeaders.requestID], !requestID.isEmpty else {
            throw RuntimeAPIError(.missingRequestID)
        }
        guard let text = invocation.headers[AmazonHeaders.deadline], let milliseconds = Int64(text),
            milliseconds > 0, milliseconds < 100_000_000_000_000
        else {
            throw RuntimeAPIError(.missingDeadline, detail: "requestId \(requestID)")
        }
        self.init(
            requestID: requestID,
            deadline: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
            invokedFunctionARN: invocation.headers[AmazonHeaders.invokedFunctionARN] ?? "",
            traceID: invocation.headers[AmazonHeaders.traceID],
            logger: logger
        )
    }

    /// Time left until the deadline at `now` (zero once it has passed).
    package func remainingTime(now: Date) -> Duration {
        let seconds = deadline.timeIntervalSince(now)
        guard seconds > 0 else { return .zero }
        return .milliseconds(Int64(seconds * 1000))
    }

    /// The deadline of a handler's work started at `now`: the invocation's, less `answerMargin`, so that a
    /// store or provider call that runs to it still leaves the time to answer and log before Lambda stops
    /// the function (a timeout there would be a 5xx from API Gateway instead of our answer).
    package func workDeadline(now: Date) -> Deadline {
        .after(remainingTime(now: now) - Self.answerMargin)
    }

    /// Kept back from every outbound call of an invocation to write the answer and the decision line.
    package static let answerMargin: Duration = .milliseconds(250)

    /// The total timeout for an outbound call started at `now`: the time left minus `margin` (kept to
    /// answer the client before Lambda kills the process), at most `cap`, and never below 1 ms so that
    /// a call made too late fails at once as a timeout instead of having no timeout at all.
    package func outboundTimeout(now: Date, margin: Duration = .milliseconds(300), cap: Duration? = nil) -> Duration {
        var budget = remainingTime(now: now) - margin
        if let cap, budget > cap { budget = cap }
        return max(budget, .milliseconds(1))
    }

    /// The Powertools keys of this invocation's lines: `function_request_id`, `function_arn`, `xray_trace_id` (the
    /// trace header's `Root`) and `cold_start` (the first invocation of this instance).
    package func logMetadata(coldStart: Bool) -> [String: JSONValue] {
        var metadata: [String: JSONValue] = [
            "function_request_id": .string(requestID), "cold_start": .bool(coldStart),
        ]
        if !invokedFunctionARN.isEmpty { metadata["function_arn"] = .string(invokedFunctionARN) }
        if let root = traceID.flatMap(Self.traceRoot) { metadata["xray_trace_id"] = .string(root) }
        return metadata
    }

    /// `Root=1-…` of an X-Ray trace header (`Root=1-5759e988-bd862e3fe1be46a994272793;Parent=…;Sampled=1`); the
    /// header itself when it has no `Root`. At most 64 characters: the header comes from Lambda, kept bounded anyway.
    static func traceRoot(_ header: String) -> String? {
        for part in header.split(separator: ";") where part.hasPrefix("Root=") {
            return String(part.dropFirst(5).prefix(64))
        }
        return header.isEmpty ? nil : String(header.prefix(64))
    }
}
