/// Why an HTTP exchange produced no usable response.
///
/// Equality uses only `reason`; `detail` (libcurl's message) is for logs.
public struct HTTPError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug, safe for metrics.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let slug: String
        private init(_ slug: String) { self.slug = slug }
        public var description: String { slug }

        public static let timeout = Reason("http.timeout")
        public static let connectFailed = Reason("http.connect_failed")
        public static let tlsFailed = Reason("http.tls_failed")
        public static let responseTooLarge = Reason("http.response_too_large")
        public static let connectionReset = Reason("http.connection_reset")
        public static let invalidURL = Reason("http.invalid_url")
        public static let protocolRefused = Reason("http.protocol_refused")
        public static let invalidHeader = Reason("http.invalid_header")
        /// The calling task was cancelled; the transfer was aborted.
        public static let cancelled = Reason("http.cancelled")
        public static let failed = Reason("http.failed")
    }

    /// How far the exchange got before it failed, for callers that must know whether the server could
    /// have acted on the request (a paid API bills a request it received, answered or not).
    public enum Stage: Sendable, Hashable {
        /// Not known to be unsent: treat as possibly received.
        case unknown
        /// No byte of the request was written: name resolution, connection or TLS failed first.
        case notSent
        /// The request was (at least partly) written and no response byte came back.
        case sent
        /// At least one response byte arrived before the failure.
        case responseStarted
    }

    public let reason: Reason
    public let detail: String
    public let stage: Stage

    public init(_ reason: Reason, detail: String = "", stage: Stage = .unknown) {
        self.reason = reason
        self.detail = detail
        self.stage = stage
    }

    public static func == (lhs: HTTPError, rhs: HTTPError) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    public var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
