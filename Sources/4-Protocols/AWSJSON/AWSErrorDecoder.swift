internal import AttestCore

/// Reads an AWS JSON error response (soto's `JSONError`; the "AWS JSON 1.0/1.1 protocol" error rules).
package enum AWSErrorDecoder {
    /// The error code from `__type` (or the `x-amzn-ErrorType` header): the part after the last `#`, cut at
    /// the first `:` (some services append a URI), e.g. `com.amazonaws.dynamodb.v20120810#ThrottlingException`.
    package static func code(fromType type: String) -> String {
        let afterHash = type.split(separator: "#", omittingEmptySubsequences: false).last.map(String.init) ?? type
        return String(afterHash.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    /// Builds the error for a non-2xx response.
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - body: the response body (a JSON object, or anything at all when a proxy answered).
    ///   - errorTypeHeader: `x-amzn-ErrorType`, used when the body has no `__type`.
    ///   - retryAfter: the `Retry-After` header, honoured when it is a whole number of seconds.
    package static func decode(status: Int, body: [UInt8], errorTypeHeader: String?, retryAfter: String?) -> AWSError {
        let document = try? JSONValue.parse(body)
        let type = document?["__type"]?.stringValue ?? errorTypeHeader
        let code = type.map(code(fromType:)).flatMap { $0.isEmpty ? nil : $0 }
        let message = document?["message"]?.stringValue ?? document?["Message"]?.stringValue ?? ""
        let retryAfterSeconds = retryAfter.flatMap { Int($0.trimmingPrefix(" ")) }.flatMap { $0 >= 0 ? $0 : nil }
        return AWSError(
            classify(status: status, code: code),
            code: code,
            status: status,
            detail: message,
            body: document,
            retryAfterSeconds: retryAfterSeconds
        )
    }

    /// Error codes the SDKs treat as throttling (botocore `standard.py`, the SDK reference "Retry behavior").
    package static let throttlingCodes: Set<String> = [
        "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
        "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
        "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
        "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException",
    ]

    /// Codes the SDKs treat as transient whatever the status.
    package static let transientCodes: Set<String> = ["RequestTimeout", "RequestTimeoutException"]

    /// Maps a status and code to a bounded reason. The code wins over the status where both say something.
    package static func classify(status: Int, code: String?) -> AWSError.Reason {
        switch code {
        case "ConditionalCheckFailedException": return .conditionalCheckFailed
        case "ValidationException", "SerializationException", "InvalidParameterException",
            "InvalidRequestException":
            return .validation
        case "TransactionConflictException": return .transactionConflict
        case "ResourceNotFoundException": return .resourceNotFound
        case "ResourceInUseException": return .resourceInUse
        case "AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
            "MissingAuthenticationTokenException", "ExpiredTokenException", "IncompleteSignature":
            return .accessDenied
        case let code? where throttlingCodes.contains(code): return .throttled
        case let code? where transientCodes.contains(code): return .serverError
        default: break
        }
        if status == 429 { return .throttled }
        if status >= 500 { return .serverError }
        return .clientError
    }
}
