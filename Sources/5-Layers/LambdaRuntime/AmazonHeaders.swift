/// Header names of the Lambda Runtime API (`/2018-06-01`).
enum AmazonHeaders {
    static let requestID = "lambda-runtime-aws-request-id"
    static let deadline = "lambda-runtime-deadline-ms"
    static let invokedFunctionARN = "lambda-runtime-invoked-function-arn"
    static let traceID = "lambda-runtime-trace-id"
    static let functionErrorType = "Lambda-Runtime-Function-Error-Type"
    /// Streamed responses: the request header that selects streaming, and the error trailer's body
    /// (base64 of the same `{"errorMessage","errorType"}` document `/error` takes).
    static let responseMode = "Lambda-Runtime-Function-Response-Mode"
    static let functionErrorBody = "Lambda-Runtime-Function-Error-Body"
}

/// Paths and limits of the Lambda Runtime API.
enum RuntimeAPIConsts {
    static let apiVersion = "2018-06-01"
    static let nextPath = "/runtime/invocation/next"
    static let initErrorPath = "/runtime/init/error"
    static func responsePath(_ requestID: String) -> String { "/runtime/invocation/\(requestID)/response" }
    static func errorPath(_ requestID: String) -> String { "/runtime/invocation/\(requestID)/error" }
    /// Lambda's synchronous payload limit is 6 MB; a little room is left for the JSON around it.
    static let maxEventBytes = 6 * 1024 * 1024 + 64 * 1024
    /// Unsent bytes of a streamed response above which the handler's writes wait.
    static let streamBufferBytes = 256 * 1024
    /// The environment variable the runtime exports for the X-Ray SDK, once per invocation.
    static let traceIDVariable = "_X_AMZN_TRACE_ID"
}
