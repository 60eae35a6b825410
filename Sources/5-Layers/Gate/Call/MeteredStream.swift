internal import AttestCore
internal import Dialects
internal import FoundationEssentials
internal import Synchronization

extension MeteredCall {
    /// The stream the client gets: for a known dialect, each piece also feeds the provider's usage reader,
    /// and a clean end settles the money reservation to the final usage; opaque routes pass the provider's
    /// stream on untouched (their reservation is the call-ceiling unit, which stays spent).
    ///
    /// The settle comes after the call's decision line, so it writes a line of its own through the same
    /// record (`event: stream_settled`): the usage, the tokens and the cost settled, and with a `model` the
    /// same money and token metrics a buffered call's decision line carries.
    func meteredStream(
        _ stream: UpstreamStream,
        ceiling: CeilingReservation?,
        bound: CallBound,
        route: MeteredRoute,
        model: String?,
        now: Date,
        logger: Logger
    ) -> UpstreamStream {
        guard route.dialect.isKnown else { return stream }
        let ceilingGuard = self.ceilingGuard
        let base = DecisionRecord(environment: environment, route: route.feature, mode: route.mode)
        let timestamp = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let source = UsageReadingSource(inner: stream.source, dialect: route.dialect) { usage in
            var record = base
            record.event = "stream_settled"
            record.model = model
            defer { record.emit(to: logger, timestampMillis: timestamp) }
            await MeteredCall.settle(
                usage,
                ceiling: ceiling,
                bound: bound,
                dialect: route.dialect,
                ceilingGuard: ceilingGuard,
                record: &record,
                logger: logger
            )
        }
        return UpstreamStream(source: source, deadline: stream.deadline, maxBytes: stream.maxBytes)
    }
}

/// Reads the provider's final usage from the pieces as they pass (`StreamUsage`, bounded), and calls
/// `settle` once when the stream ends cleanly; never when it fails or is cancelled before its end.
final class UsageReadingSource: UpstreamEventSource {
    private let inner: any UpstreamEventSource
    private let usage: Mutex<StreamUsage>
    private let settle: @Sendable (Usage?) async -> Void

    init(inner: any UpstreamEventSource, dialect: Dialect, settle: @escaping @Sendable (Usage?) async -> Void) {
        self.inner = inner
        self.usage = Mutex(StreamUsage(dialect: dialect))
        self.settle = settle
    }

    func next() async throws(UpstreamStreamError) -> [UInt8]? {
        if let piece = try await inner.next() {
            usage.withLock { $0.feed(piece) }
            return piece
        }
        let final = usage.withLock { reader -> Usage? in
            reader.finish()
            return reader.usage
        }
        await settle(final)
        return nil
    }

    func cancel() { inner.cancel() }

    /// Each piece feeds the usage reader on the producer's thread, then goes to `sink`.
    func forward(to sink: @escaping @Sendable (UnsafeRawBufferPointer) -> Bool) -> Bool {
        inner.forward { [self] piece in
            usage.withLock { $0.feed(piece.assumingMemoryBound(to: UInt8.self)) }
            return sink(piece)
        }
    }

    /// Settles once, at a clean end, as `next()` does.
    func forwardingEnded() async -> UpstreamStreamError? {
        if let failure = await inner.forwardingEnded() { return failure }
        let final = usage.withLock { reader -> Usage? in
            reader.finish()
            return reader.usage
        }
        await settle(final)
        return nil
    }
}
