/// The paid AI API behind the gate, called with the server-held key.
package protocol UpstreamCalling: Sendable {
    /// Forwards `body` to the route's upstream path within `timeout`.
    func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult
}

/// What became of the upstream call.
package enum UpstreamResult: Sendable, Hashable {
    /// The provider answered (and billed): its status, content type and body are passed on.
    case answered(status: Int, contentType: String?, body: [UInt8])
    /// The provider never answered or refused before doing work (timeout, connection error, 429, 5xx):
    /// nothing was billed, so the allowance and ceiling units are released. `timedOut` picks 504 over 502.
    case notAnswered(timedOut: Bool, reason: String)
    /// A streamed route's provider answered 2xx `text/event-stream`: the body is read as it arrives.
    case streaming(status: Int, contentType: String?, body: UpstreamStream)
}

/// Why a streamed upstream body stopped early (bounded slugs: `http.timeout`, `http.connection_reset`…).
package struct UpstreamStreamError: Error, Hashable {
    package let reason: String
    package init(_ reason: String) { self.reason = reason }
}

/// The provider's streamed body, piece by piece as it arrives; the reader ends it or cancels it.
package protocol UpstreamEventSource: Sendable {
    /// The next bytes as the provider sent them; nil at the clean end.
    func next() async throws(UpstreamStreamError) -> [UInt8]?
    /// Stops reading and closes the connection to the provider.
    func cancel()
}

/// A streamed upstream body; equal only to itself (so results stay `Hashable`).
package final class UpstreamStream: Sendable, Hashable {
    package let source: any UpstreamEventSource
    /// When the stream must be over: the route's `maxStreamSeconds` from the call's start, or the
    /// invocation's deadline minus the margin, whichever comes first.
    package let deadline: ContinuousClock.Instant
    package let maxBytes: Int

    package init(source: any UpstreamEventSource, deadline: ContinuousClock.Instant, maxBytes: Int) {
        self.source = source
        self.deadline = deadline
        self.maxBytes = maxBytes
    }

    package static func == (lhs: UpstreamStream, rhs: UpstreamStream) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
