package import AttestCore
package import HTTPClient
internal import SigV4

/// One AWS service spoken over the AWS JSON protocol (1.0 or 1.1): `POST /` with `X-Amz-Target`, a JSON
/// body, SigV4, and the standard retry mode. DynamoDB and Secrets Manager are built on it.
///
/// Per call: every attempt is signed afresh; its timeout is `attemptTimeout` capped by the deadline; the
/// response's `x-amz-crc32` is checked when present; errors are decoded by `AWSErrorDecoder` and retried as
/// `RetryPolicy` decides, paid for from a `RetryQuota` shared by the client's copies. Responses are never
/// compressed (`Accept-Encoding: identity`), so the checksum covers exactly the bytes parsed.
package struct AWSJSONClient: Sendable {
    package let configuration: AWSServiceConfiguration
    private let transport: any HTTPTransport
    private let clock: any WallClock
    private let random: any RandomSource
    private let quota: SharedRetryQuota
    /// The endpoint's host (the signed `Host` header), worked out once.
    private let host: String

    /// - Parameters:
    ///   - clock: the signing time (`X-Amz-Date`).
    ///   - random: the backoff jitter.
    package init(
        configuration: AWSServiceConfiguration,
        transport: any HTTPTransport,
        clock: any WallClock,
        random: any RandomSource
    ) {
        self.configuration = configuration
        self.transport = transport
        self.clock = clock
        self.random = random
        self.quota = SharedRetryQuota()
        self.host = Self.host(of: configuration.endpoint)
    }

    /// What is left of the retry quota (tests, metrics).
    package var retryQuotaAvailable: Int { quota.available }

    /// Nothing is sent when less than this is left before the deadline: no answer could arrive in time.
    package static let minimumAttemptTime: Duration = .milliseconds(20)

    /// Calls `operation` with `input` and returns the response document.
    /// - Parameters:
    ///   - operation: the operation name, e.g. `GetItem`.
    ///   - input: the request document (a JSON object).
    ///   - deadline: nothing waits past it; a call out of time fails with `aws.deadline_exceeded`.
    /// - Throws: `AWSError` with the last attempt's reason.
    package func call(_ operation: String, _ input: JSONValue, deadline: Deadline) async throws(AWSError) -> JSONValue {
        let body = input.serializedBytes
        let policy = configuration.retry
        var attempt = 0
        let started = ContinuousClock.now
        defer { RequestTally.current?.record(start: started, end: .now, attempts: attempt) }
        var lastRetryCost: Int?
        var lastError: AWSError?
        var mayHaveApplied = false
        while true {
            attempt += 1
            let remaining = deadline.remaining
            guard remaining > Self.minimumAttemptTime else {
                var error = AWSError(
                    .deadlineExceeded,
                    code: lastError?.code,
                    status: lastError?.status,
                    detail: "\(operation): no time left for attempt \(attempt)"
                        + (lastError.map { " after \($0)" } ?? ""),
                    body: lastError?.body
                )
                error.mayHaveApplied = mayHaveApplied
                throw error
            }
            let request = signedRequest(operation, body: body, timeout: min(configuration.attemptTimeout, remaining))
            do {
                let result = try await attemptOnce(request, deadline: deadline)
                quota.recordSuccess(retryCost: lastRetryCost)
                return result
            } catch var error {
                mayHaveApplied = mayHaveApplied || Self.mayHaveApplied(error)
                error.mayHaveApplied = mayHaveApplied
                // An attempt given all the time that was left, timed out by the transport: the deadline is why,
                // whichever of the transport's timer and the deadline race fired first.
                if error.reason == .timeout && remaining < configuration.attemptTimeout {
                    var late = AWSError(
                        .deadlineExceeded,
                        detail: "\(operation): attempt \(attempt) timed out at the deadline (\(error))"
                    )
                    late.mayHaveApplied = true
                    throw late
                }
                guard case .retry(let kind) = policy.decision(for: error, attempt: attempt),
                    let cost = quota.acquire(for: kind)
                else { throw error }
                lastRetryCost = cost
                lastError = error
                let wait = policy.delay(
                    afterAttempt: attempt,
                    jitter: jitter(),
                    retryAfterSeconds: error.retryAfterSeconds
                )
                // Never sleep past the deadline: if the wait would use up the time, the last error stands.
                guard deadline.remaining - wait > Self.minimumAttemptTime else { throw error }
                if wait > .zero { try? await Task.sleep(for: wait) }
            }
        }
    }

    /// Whether a failed attempt may have been carried out: no refusal came back for it (a connection failure
    /// counts, as the request may have gone out before it).
    static func mayHaveApplied(_ error: AWSError) -> Bool {
        switch error.reason {
        case .timeout, .serverError, .crcMismatch, .deadlineExceeded, .malformedResponse, .connectionFailed: true
        default: false
        }
    }

    private func attemptOnce(_ request: HTTPRequest, deadline: Deadline) async throws(AWSError) -> JSONValue {
        let response: HTTPResponse
        switch await transport.send(request, before: deadline) {
        case .success(let received)?:
            response = received
        case .failure(let error as HTTPError)?:
            let mapped = Self.map(error)
            // An attempt's timeout is capped by the deadline, so libcurl can report the deadline as its own
            // timeout a moment before `DeadlineRace` does: out of time is the deadline, not a slow server.
            if mapped.reason == .timeout, deadline.remaining <= Self.minimumAttemptTime {
                throw AWSError(.deadlineExceeded, detail: "no response before the deadline (\(error))")
            }
            throw mapped
        case .failure(let error)?:
            throw AWSError(.connectionFailed, detail: "\(error)")
        case nil:
            throw AWSError(.deadlineExceeded, detail: "no response before the deadline")
        }
        guard CRC32.matches(header: response.header("x-amz-crc32"), body: response.body) else {
            throw AWSError(.crcMismatch, status: response.status, detail: "x-amz-crc32 does not match the body")
        }
        guard (200..<300).contains(response.status) else {
            throw AWSErrorDecoder.decode(
                status: response.status,
                body: response.body,
                errorTypeHeader: response.header("x-amzn-ErrorType"),
                retryAfter: response.header("Retry-After")
            )
        }
        if response.body.isEmpty { return .object([:]) }
        guard let document = try? JSONValue.parse(response.body), document.objectValue != nil else {
            throw AWSError(.malformedResponse, status: response.status, detail: "2xx body is not a JSON object")
        }
        return document
    }

    private func signedRequest(_ operation: String, body: [UInt8], timeout: Duration) -> HTTPRequest {
        let host = self.host
        let signedHeaders: [(name: String, value: String)] = [
            ("Host", host),
            ("Content-Type", configuration.protocolVersion.rawValue),
            ("X-Amz-Target", "\(configuration.targetPrefix).\(operation)"),
        ]
        var signer = SigV4Signer(
            credentials: configuration.credentials,
            region: configuration.region,
            service: configuration.signingName
        )
        signer.addSessionTokenAfterSigning = false
        let signed = signer.sign(
            SigV4Signer.Request(method: "POST", path: "/", headers: signedHeaders, body: body),
            date: clock.now()
        )
        var headers = (signedHeaders + signed.headers).map { HTTPHeader($0.name, $0.value) }
        headers.append(HTTPHeader("Accept-Encoding", "identity"))
        return HTTPRequest(
            method: "POST",
            url: configuration.endpoint.hasSuffix("/") ? configuration.endpoint : configuration.endpoint + "/",
            headers: headers,
            body: body,
            timeout: timeout,
            connectTimeout: min(configuration.connectTimeout, timeout),
            maxResponseBytes: configuration.maxResponseBytes
        )
    }

    /// `host[:port]` of an `http(s)://host[:port][/...]` endpoint, as the `Host` header must carry it.
    package static func host(of endpoint: String) -> String {
        var rest = Substring(endpoint)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        return String(rest.prefix { $0 != "/" })
    }

    private func jitter() -> Double {
        let bytes = random.bytes(8)
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(value >> 11) / Double(UInt64(1) << 53)
    }

    static func map(_ error: HTTPError) -> AWSError {
        switch error.reason {
        case .timeout: AWSError(.timeout, detail: error.description)
        case .connectFailed, .connectionReset, .tlsFailed, .failed:
            AWSError(.connectionFailed, detail: error.description)
        case .responseTooLarge: AWSError(.malformedResponse, detail: error.description)
        default: AWSError(.configuration, detail: error.description)
        }
    }
}
