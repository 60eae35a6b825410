/// The paid AI API behind the gate, called with the server-held key.
package protocol UpstreamCalling: Sendable {
    /// Forwards `body` to the route's upstream path within `timeout`.
    func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult
}

/// What became of the upstream call, as far as the gate can prove it.
package enum UpstreamResult: Sendable, Hashable {
    /// The provider answered: its status, content type and body.
    case answered(status: Int, contentType: String?, body: [UInt8])
    /// No usable answer; `failure` says how far the request got (which decides whether it may have
    /// been billed), `reason` is the transport's slug for the logs.
    case failed(UpstreamFailure, reason: String)
    /// A streamed route's provider answered 2xx `text/event-stream`: the body is read as it arrives.
    case streaming(status: Int, contentType: String?, body: UpstreamStream)
}

/// How far a failed upstream call got. Only `notSent` proves the provider never saw the request.
package enum UpstreamFailure: String, Sendable, Hashable {
    /// Name resolution, connection or TLS failed before any request byte was written.
    case notSent
    /// The request was written and the time ran out (the provider may be generating, and billing).
    case timedOut
    /// The request was written and the connection ended before any response byte.
    case lost
    /// The connection ended after response bytes arrived (the provider answered, at least in part).
    case cut
    /// The provider answered more than the route forwards (it did the work).
    case tooLarge
}

/// Whether a call's units go back (docs/gate.md, "What is released").
package enum ReleasePolicy: String, Sendable, Hashable {
    /// Only what provably was not billed: never sent, or a refusal status in `releaseStatuses`.
    case unbilled
    /// The original rule: also timeouts, lost connections and every 5xx (opt-in; refused in production
    /// unless `ALLOW_SEED_RELEASE=true`).
    case seed

    /// The statuses released by default: documented refusals before any work (rate limited, overloaded).
    package static let defaultStatuses: StatusSet = [429, 503, 529]

    /// What a call's outcome means for its units.
    package struct Verdict: Sendable, Hashable {
        /// Give the allowance and ceiling units back (and the whole money reservation).
        package var release: Bool
        /// The decision line's `upstream` field: `unsent`, `refused_429`, `timeout_kept`, `cut_kept`, …
        package var label: String
        /// Whether the client gets the provider's answer (false: `502`/`504 upstream_unavailable`).
        package var passOn: Bool
        /// 504 rather than 502 when the answer is not passed on.
        package var timedOut: Bool
    }

    /// - Parameter statuses: the route's `releaseStatuses`.
    package func verdict(_ result: UpstreamResult, statuses: StatusSet) -> Verdict {
        switch result {
        case .answered(let status, _, _):
            let refusal = status == 429 || status >= 500
            if statuses.contains(status) || (self == .seed && refusal) {
                return Verdict(release: true, label: "refused_\(status)", passOn: false, timedOut: false)
            }
            if refusal { return Verdict(release: false, label: "failed_\(status)", passOn: false, timedOut: false) }
            // A provider's own refusal (4xx) is never passed on verbatim: its body can name the provider, the
            // project or the key. The client gets our error shape (`GateResponse.providerRefusal`).
            guard (200..<300).contains(status) else {
                return Verdict(release: false, label: "rejected_\(status)", passOn: false, timedOut: false)
            }
            return Verdict(release: false, label: "answered", passOn: true, timedOut: false)
        case .failed(let failure, _):
            let seedReleases = self == .seed && failure != .tooLarge
            let suffix = seedReleases ? "_released" : "_kept"
            switch failure {
            case .notSent: return Verdict(release: true, label: "unsent", passOn: false, timedOut: false)
            case .timedOut:
                return Verdict(release: seedReleases, label: "timeout" + suffix, passOn: false, timedOut: true)
            case .lost: return Verdict(release: seedReleases, label: "lost" + suffix, passOn: false, timedOut: false)
            case .cut: return Verdict(release: seedReleases, label: "cut" + suffix, passOn: false, timedOut: false)
            case .tooLarge: return Verdict(release: false, label: "too_large_kept", passOn: false, timedOut: false)
            }
        case .streaming:
            // The provider is generating (and billing): nothing goes back; the stream settles at its end.
            return Verdict(release: false, label: "streaming", passOn: true, timedOut: false)
        }
    }
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

    /// From now on hands every piece to `sink` on the producer's own thread as it arrives (no task hop, no
    /// queue); false stops the stream. Installed only when no piece is waiting to be read and the stream
    /// has not ended (false: read with `next()` first), or never (the default: false).
    func forward(to sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) -> Bool

    /// After a `forward(to:)` that returned true: waits for the stream's end; nil when it completed, else why
    /// it stopped (a sink that returned false stops it as a cancel).
    func forwardingEnded() async -> UpstreamStreamError?
}

extension UpstreamEventSource {
    package func forward(to sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) -> Bool { false }
    package func forwardingEnded() async -> UpstreamStreamError? { nil }
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
