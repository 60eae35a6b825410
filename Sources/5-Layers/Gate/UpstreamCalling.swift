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
}
