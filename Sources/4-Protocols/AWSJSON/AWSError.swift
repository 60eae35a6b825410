package import AttestCore

/// Why a call to an AWS JSON service failed.
///
/// Equality and hashing use only `reason`, a bounded slug for logs and metrics. `code` is the service's own
/// error code (the part of `__type` after the last `#`), `detail` the service's message or the transport's
/// text (logs only), and `body` the whole error document (DynamoDB's `ConditionalCheckFailedException`
/// carries the `ALL_OLD` item there).
package struct AWSError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug.
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        /// Modules above this one add their own reasons as `static let`s; never build one from input.
        package init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// A throttling code or HTTP 429.
        package static let throttled = Reason("aws.throttled")
        /// HTTP 5xx, or a transient service code such as `RequestTimeout`.
        package static let serverError = Reason("aws.server_error")
        /// `ConditionalCheckFailedException`: the write's condition was false; never retried.
        package static let conditionalCheckFailed = Reason("aws.conditional_check_failed")
        /// `ValidationException` and friends: the request itself is wrong; never retried.
        package static let validation = Reason("aws.validation")
        /// `TransactionConflictException`: never retried (docs/dynamodb.md, own writes).
        package static let transactionConflict = Reason("aws.transaction_conflict")
        package static let resourceNotFound = Reason("aws.resource_not_found")
        package static let resourceInUse = Reason("aws.resource_in_use")
        package static let accessDenied = Reason("aws.access_denied")
        /// Any other 4xx error.
        package static let clientError = Reason("aws.client_error")
        /// No response within the attempt's timeout.
        package static let timeout = Reason("aws.timeout")
        /// Connecting failed or the connection broke before a complete response.
        package static let connectionFailed = Reason("aws.connection_failed")
        /// The body does not match `x-amz-crc32`.
        package static let crcMismatch = Reason("aws.crc_mismatch")
        /// The invocation's deadline left no time for (another) attempt.
        package static let deadlineExceeded = Reason("aws.deadline_exceeded")
        /// A 2xx body that is not a JSON object, or an error response we cannot read.
        package static let malformedResponse = Reason("aws.malformed_response")
        /// A required setting (credentials, region) is missing.
        package static let configuration = Reason("aws.configuration")
        /// Refused before sending: the request is invalid (modules add finer reasons).
        package static let invalidRequest = Reason("aws.invalid_request")
    }

    package let reason: Reason
    /// The service's error code, e.g. `ProvisionedThroughputExceededException`; nil for local failures.
    package let code: String?
    /// The HTTP status, when a response arrived.
    package let status: Int?
    /// For logs only.
    package let detail: String
    /// The error document as received, when there was one.
    package let body: JSONValue?
    /// Seconds the service asked us to wait (`Retry-After`), when it did.
    package let retryAfterSeconds: Int?
    /// Whether any attempt of the call may have been carried out by the service although no answer said
    /// so: a timeout, a lost connection, a 5xx or a damaged answer. False when every attempt was refused
    /// outright (throttled, a transaction conflict, any other 4xx) or nothing was sent, so a caller may
    /// then send the request elsewhere without risk of it applying twice (docs/dynamodb.md, contention).
    package var mayHaveApplied = false

    package init(
        _ reason: Reason,
        code: String? = nil,
        status: Int? = nil,
        detail: String = "",
        body: JSONValue? = nil,
        retryAfterSeconds: Int? = nil
    ) {
        self.reason = reason
        self.code = code
        self.status = status
        self.detail = detail
        self.body = body
        self.retryAfterSeconds = retryAfterSeconds
    }

    package static func == (lhs: AWSError, rhs: AWSError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }

    package var description: String {
        var text = reason.slug
        if let code { text += " (\(code))" }
        if !detail.isEmpty { text += ": \(detail)" }
        return text
    }
}
