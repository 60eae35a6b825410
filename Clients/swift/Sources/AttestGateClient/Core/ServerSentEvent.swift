/// One server-sent event as an `EventSource` dispatches it (HTML Living Standard, "Server-sent events",
/// interpreting an event stream).
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field; `message` when the event has none.
    public let event: String
    /// The event's `data:` lines joined with "\n".
    public let data: String
    /// The last `id:` seen on the stream so far (it carries over to later events).
    public let id: String?
    /// This event's `retry:` field, in milliseconds.
    public let retry: Int?

    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}

/// A stream that is not a well-formed event stream within the parser's bounds, or that broke.
public struct EventStreamError: Error, Hashable, CustomStringConvertible {
    /// A bounded reason slug.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        public let slug: String
        private init(_ slug: String) { self.slug = slug }
        public var description: String { slug }

        /// A line longer than the parser's bound (a provider that never sends a line break).
        public static let lineTooLong = Reason("sse.line_too_long")
        /// An event's data longer than the parser's bound.
        public static let eventTooLarge = Reason("sse.event_too_large")
        /// The connection broke mid-stream (`detail`: the transport's reason).
        public static let broken = Reason("sse.broken")
    }

    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, detail: String = "") {
        self.reason = reason
        self.detail = detail
    }

    public static func == (lhs: EventStreamError, rhs: EventStreamError) -> Bool { lhs.reason == rhs.reason }
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    public var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
