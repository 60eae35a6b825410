/// Why an exchange produced no usable response, and how far it got. Equality uses only `reason`.
public struct TransportError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let slug: String
        private init(_ slug: String) { self.slug = slug }
        public var description: String { slug }

        /// No connection could be made (no network, DNS, refused, TLS).
        public static let connectFailed = Reason("transport.connect_failed")
        /// No progress within the request's timeout.
        public static let timeout = Reason("transport.timeout")
        /// The connection broke.
        public static let connectionLost = Reason("transport.connection_lost")
        /// The body passed the client's bound.
        public static let responseTooLarge = Reason("transport.response_too_large")
        /// The task was cancelled.
        public static let cancelled = Reason("transport.cancelled")
        /// The URL is not one the transport takes.
        public static let invalidURL = Reason("transport.invalid_url")
        public static let failed = Reason("transport.failed")
    }

    /// How far the exchange got: whether the server could have acted on the request.
    public enum Stage: Sendable, Hashable {
        /// No byte of the request left: safe to send again.
        case notSent
        /// The request may have arrived (treat as possibly served).
        case sent
        /// The head arrived, then the body broke.
        case responseStarted
    }

    public let reason: Reason
    public let stage: Stage
    public let detail: String

    public init(_ reason: Reason, stage: Stage, detail: String = "") {
        self.reason = reason
        self.stage = stage
        self.detail = detail
    }

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    public var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
