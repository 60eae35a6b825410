package import SigV4

/// Everything an `AWSJSONClient` needs to reach one service.
package struct AWSServiceConfiguration: Sendable {
    /// The AWS JSON protocol version: it sets `Content-Type`.
    package enum ProtocolVersion: String, Sendable {
        /// DynamoDB.
        case json10 = "application/x-amz-json-1.0"
        /// Secrets Manager.
        case json11 = "application/x-amz-json-1.1"
    }

    /// `https://host[:port]` (or `http://127.0.0.1:port` for local stand-ins); requests go to `/`.
    package var endpoint: String
    package var region: String
    /// The SigV4 signing name (`dynamodb`, `secretsmanager`).
    package var signingName: String
    /// `X-Amz-Target` is `<targetPrefix>.<Operation>` (`DynamoDB_20120810`, `secretsmanager`).
    package var targetPrefix: String
    package var protocolVersion: ProtocolVersion
    package var credentials: SigV4Credentials
    /// Longest wait for one attempt's response (the SDKs' read timeout, commonly 3 s).
    package var attemptTimeout: Duration = .seconds(3)
    package var connectTimeout: Duration = .seconds(1)
    package var retry: RetryPolicy = .standard
    /// The largest response body accepted.
    package var maxResponseBytes = 4 << 20

    package init(
        endpoint: String,
        region: String,
        signingName: String,
        targetPrefix: String,
        protocolVersion: ProtocolVersion,
        credentials: SigV4Credentials
    ) {
        self.endpoint = endpoint
        self.region = region
        self.signingName = signingName
        self.targetPrefix = targetPrefix
        self.protocolVersion = protocolVersion
        self.credentials = credentials
    }

    /// A copy with another retry policy or attempt timeout (tests, tuning).
    package func with(retry: RetryPolicy? = nil, attemptTimeout: Duration? = nil) -> AWSServiceConfiguration {
        var copy = self
        if let retry { copy.retry = retry }
        if let attemptTimeout { copy.attemptTimeout = attemptTimeout }
        return copy
    }
}
