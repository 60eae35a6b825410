internal import Dispatch
internal import Synchronization

/// A request body written while it is sent (chunked transfer encoding), with bounded memory.
///
/// The async side (`write`, `finish`) is the producer; libcurl's read callback is the consumer and runs
/// on the transfer's own thread, where it may block. A writer waits (suspended, never blocking a
/// thread) while more than `capacity` bytes are unsent, so memory stays at about `capacity` whatever
/// the length of the body. Trailers named up front (`trailerNames`) are sent after the last chunk.
public final class RequestBodyStream: Sendable {
    private struct State {
        var chunks: [[UInt8]] = []
        /// The first chunk not yet fully sent, and how much of it was sent.
        var head = 0
        var offset = 0
        var buffered = 0
        var finished = false
        var trailers: [HTTPHeader] = []
        /// Set when the transfer is over: later writes throw this.
        var closed: HTTPError?
        var writer: CheckedContinuation<Void, Never>?
        var readerBlocked = false
        /// A `writeBlocking` caller waits on `writerWake`.
        var writerBlocked = false
    }

    /// How a `writeBlocking` ended.
    public enum BlockingWrite: Sendable, Equatable {
        case written
        /// The transfer ended before or while the bytes waited.
        case closed(HTTPError)
        /// Still more than `capacity` bytes unsent at the deadline.
        case timedOut
    }

    /// Unsent bytes above which a writer waits.
    public let capacity: Int
    /// Trailer names announced in the `Trailer` request header.
    public let trailerNames: [String]
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let writerWake = DispatchSemaphore(value: 0)

    public init(capacity: Int = 64 * 1024, trailerNames: [String] = []) {
        self.capacity = max(1, capacity)
        self.trailerNames = trailerNames
    }

    /// Queues `bytes` for sending; returns once at most `capacity` bytes are waiting.
    /// - Throws: `HTTPError` when the transfer has already ended (the peer closed, or it failed).
    public func write(_ bytes: [UInt8]) async throws(HTTPError) {
        guard !bytes.isEmpty else { return }
        let (wakeReader, full, closed) = state.withLock { state -> (Bool, Bool, HTTPError?) in
            if let closed = state.closed { return (false, false, closed) }
            precondition(!state.finished, "write after finish")
            state.chunks.append(bytes)
            state.buffered += bytes.count
            let wakeReader = state.readerBlocked
            state.readerBlocked = false
            return (wakeReader, state.buffered > capacity, nil)
        }
        if let closed { throw closed }
        if wakeReader { wake.signal() }
        guard full else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.buffered <= capacity || state.closed != nil { return true }
                state.writer = continuation
                return false
            }
            if now { continuation.resume() }
        }
        if let closed = state.withLock({ $0.closed }) { throw closed }
    }

    /// Queues a copy of `bytes` from a thread that may block (another transfer's own, never Swift's
    /// cooperative pool), then blocks that thread while more than `capacity` bytes are unsent, until
    /// `deadline` at most: a producer on a thread of its own hands its pieces over with no task between.
    public func writeBlocking(_ bytes: UnsafeRawBufferPointer, deadline: ContinuousClock.Instant?) -> BlockingWrite {
        guard !bytes.isEmpty else { return .written }
        let chunk = [UInt8](bytes)
        let (wakeReader, closed) = state.withLock { state -> (Bool, HTTPError?) in
            if let closed = state.closed { return (false, closed) }
            precondition(!state.finished, "write after finish")
            state.chunks.append(chunk)
            state.buffered += chunk.count
            let wakeReader = state.readerBlocked
            state.readerBlocked = false
            return (wakeReader, nil)
        }
        if let closed { return .closed(closed) }
        if wakeReader { wake.signal() }
        while true {
            let outcome = state.withLock { state -> BlockingWrite? in
                if let closed = state.closed { return .closed(closed) }
                if state.buffered <= capacity { return .written }
                state.writerBlocked = true
                return nil
            }
            if let outcome { return outcome }
            guard let deadline else {
                writerWake.wait()
                continue
            }
            let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
            let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
            if writerWake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .timedOut {
                // A signal sent meanwhile is taken, so the semaphore stays balanced.
                let signalled = state.withLock { state -> Bool in
                    defer { state.writerBlocked = false }
                    return !state.writerBlocked
                }
                if signalled { writerWake.wait() }
                let outcome = state.withLock { state -> BlockingWrite in
                    if let closed = state.closed { return .closed(closed) }
                    return state.buffered <= capacity ? .written : .timedOut
                }
                return outcome
            }
        }
    }

    /// Ends the body; `trailers` (names from `trailerNames`) follow the last chunk.
    public func finish(trailers: [HTTPHeader] = []) {
        let wakeReader = state.withLock { state -> Bool in
            state.finished = true
            state.trailers = trailers
            let wakeReader = state.readerBlocked
            state.readerBlocked = false
            return wakeReader
        }
        if wakeReader { wake.signal() }
    }

    /// The transfer ended (or was cancelled): a waiting writer resumes, every later write throws
    /// `error`, and a reader waiting for bytes aborts the transfer.
    func close(_ error: HTTPError) {
        let (writer, wakeReader, wakeWriter) = state.withLock {
            state -> (CheckedContinuation<Void, Never>?, Bool, Bool) in
            if state.closed == nil { state.closed = error }
            let wakeReader = state.readerBlocked
            state.readerBlocked = false
            let wakeWriter = state.writerBlocked
            state.writerBlocked = false
            defer { state.writer = nil }
            return (state.writer, wakeReader, wakeWriter)
        }
        writer?.resume()
        if wakeReader { wake.signal() }
        if wakeWriter { writerWake.signal() }
    }

    /// The read callback's side: copies the queued bytes into `buffer` (as many as fit, across writes),
    /// blocking while none are queued;
    /// 0 means the body is complete, -1 that the transfer must abort (closed).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let (count, writer, wait, wakeWriter) = state.withLock {
                state -> (Int, CheckedContinuation<Void, Never>?, Bool, Bool) in
                if state.closed != nil { return (-1, nil, false, false) }
                guard state.head < state.chunks.count else {
                    if state.finished { return (0, nil, false, false) }
                    state.readerBlocked = true
                    return (0, nil, true, false)
                }
                // Everything queued now, up to libcurl's buffer: one chunk on the wire for the pieces
                // written since the last read, so a reader that fell behind catches up in one send.
                var count = 0
                while count < buffer.count, state.head < state.chunks.count {
                    let copied = state.chunks[state.head].withUnsafeBytes { chunk in
                        let copied = min(buffer.count - count, chunk.count - state.offset)
                        (buffer.baseAddress! + count).copyMemory(
                            from: chunk.baseAddress! + state.offset,
                            byteCount: copied
                        )
                        return copied
                    }
                    count += copied
                    state.offset += copied
                    if state.offset == state.chunks[state.head].count {
                        state.chunks[state.head] = []
                        state.head += 1
                        state.offset = 0
                    }
                }
                state.buffered -= count
                if state.head == state.chunks.count {
                    state.chunks.removeAll(keepingCapacity: true)
                    state.head = 0
                }
                guard state.buffered <= capacity else { return (count, nil, false, false) }
                let wakeWriter = state.writerBlocked
                state.writerBlocked = false
                defer { state.writer = nil }
                return (count, state.writer, false, wakeWriter)
            }
            if wait {
                wake.wait()
                continue
            }
            writer?.resume()
            if wakeWriter { writerWake.signal() }
            return count
        }
    }

    /// The trailer callback's side: the trailers given to `finish`.
    var trailers: [HTTPHeader] { state.withLock { $0.trailers } }
}

/// A response body read while it arrives, with bounded memory.
///
/// libcurl's write callback (the transfer's own thread) is the producer and blocks while more than
/// `capacity` bytes wait to be read; the async reader (`next`) never blocks a thread. `cancel()` aborts
/// the transfer and closes its connection: a blocked producer returns at once and the progress
/// callback stops an idle transfer within about a second. A producer blocked past `deadline` aborts
/// the transfer too, so a stalled reader cannot keep the connection open beyond it.
public final class ResponseBodyStream: Sendable {
    /// The status line and headers of the final response.
    public struct Head: Sendable {
        public var status: Int
        public var headers: [HTTPHeader]

        public init(status: Int, headers: [HTTPHeader]) {
            self.status = status
            self.headers = headers
        }

        /// The first header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { HTTPHeader.namesMatch($0.name, name) }?.value
        }
    }

    private struct State {
        var head: Head?
        var chunks: [[UInt8]] = []
        var first = 0
        var buffered = 0
        var end: HTTPError??
        var cancelled = false
        var reader: CheckedContinuation<Void, Never>?
        var producerBlocked = false
        var sink: Sink?
    }

    /// Takes a piece on the producer's own thread (`forward(to:)`); false stops the transfer.
    public typealias Sink = @Sendable (UnsafeRawBufferPointer) -> Bool

    public let capacity: Int
    private let deadline: ContinuousClock.Instant?
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    let cancellation = CancellationFlag()

    /// - Parameters:
    ///   - capacity: unread bytes above which the producer waits.
    ///   - deadline: when a producer that is still waiting gives up and aborts the transfer.
    public init(capacity: Int = 64 * 1024, deadline: ContinuousClock.Instant? = nil) {
        self.capacity = max(1, capacity)
        self.deadline = deadline
    }

    /// Waits for the response head.
    /// - Throws: `HTTPError` when the transfer failed before a response arrived.
    public func head() async throws(HTTPError) -> Head {
        while true {
            let outcome = state.withLock { state -> Result<Head, HTTPError>? in
                if let head = state.head { return .success(head) }
                if state.cancelled { return .failure(HTTPError(.cancelled)) }
                if case .some(.some(let error)) = state.end { return .failure(error) }
                if case .some(.none) = state.end { return .failure(HTTPError(.failed, detail: "no response head")) }
                return nil
            }
            if let outcome { return try outcome.get() }
            await waitForProducer()
        }
    }

    /// The bytes that arrived since the last call (at least one piece; waits for one), nil once the
    /// response is complete.
    /// - Throws: `HTTPError` when the transfer failed (reset, timeout, cancelled) after some bytes.
    public func next() async throws(HTTPError) -> [UInt8]? {
        while true {
            let (chunk, producer, end) = state.withLock { state -> ([UInt8]?, Bool, HTTPError??) in
                if state.first < state.chunks.count {
                    // Every piece that arrived since the last read, as one: a reader that fell behind
                    // catches up with one hand-over instead of one per piece (a single piece is not copied).
                    var chunk = state.chunks[state.first]
                    state.chunks[state.first] = []
                    if state.chunks.count - state.first > 1 {
                        chunk.reserveCapacity(state.buffered)
                        for index in (state.first + 1)..<state.chunks.count {
                            chunk += state.chunks[index]
                        }
                    }
                    state.chunks.removeAll(keepingCapacity: true)
                    state.first = 0
                    state.buffered -= chunk.count
                    let producer = state.producerBlocked && state.buffered <= capacity
                    if producer { state.producerBlocked = false }
                    return (chunk, producer, nil)
                }
                if state.cancelled, state.end == nil { return (nil, false, .some(HTTPError(.cancelled))) }
                return (nil, false, state.end)
            }
            if producer { wake.signal() }
            if let chunk { return chunk }
            switch end {
            case .some(.none): return nil
            case .some(.some(let error)): throw error
            case .none: await waitForProducer()
            }
        }
    }

    /// From now on every piece goes to `sink` on the producer's own thread the moment it arrives: no task
    /// and no queue in between, and no copy here (the sink copies what it keeps). Installed only while no
    /// piece is waiting and the body has not ended: false means "read with `next()` first" (or the end), so
    /// the order of the pieces never changes. A sink that returns false stops the transfer (`cancel()`).
    /// `forwardingEnded()` then waits for the end.
    public func forward(to sink: @escaping Sink) -> Bool {
        state.withLock { state -> Bool in
            guard state.first == state.chunks.count, state.end == nil, !state.cancelled, state.sink == nil else {
                return false
            }
            state.sink = sink
            return true
        }
    }

    /// After `forward(to:)`: waits until the transfer is over; nil when the body is complete, else why it
    /// stopped (`http.cancelled` once the sink or a caller stopped it).
    public func forwardingEnded() async -> HTTPError? {
        while true {
            if let end = state.withLock({ $0.end }) { return end }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.end != nil { return true }
                    state.reader = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// Stops the transfer and closes its connection; later reads end with `http.cancelled`.
    public func cancel() {
        cancellation.cancel()
        let (producer, reader) = state.withLock { state -> (Bool, CheckedContinuation<Void, Never>?) in
            state.cancelled = true
            let producer = state.producerBlocked
            state.producerBlocked = false
            defer { state.reader = nil }
            return (producer, state.reader)
        }
        if producer { wake.signal() }
        reader?.resume()
    }

    private func waitForProducer() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.first < state.chunks.count || state.end != nil || state.cancelled { return true }
                state.reader = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: the producer's side (libcurl's thread, or a test)

    /// Publishes the response head (once).
    package func publish(_ head: Head) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.head == nil { state.head = head }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Queues a copy of `bytes`, then blocks while more than `capacity` bytes are unread.
    /// - Returns: false when the transfer must stop (cancelled, or blocked past the deadline).
    package func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink = state.withLock({ $0.cancelled ? nil : $0.sink }) {
            guard sink(bytes) else {
                cancel()
                return false
            }
            return true
        }
        let chunk = [UInt8](bytes)
        var reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.cancelled else { return nil }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            defer { state.reader = nil }
            return state.reader
        }
        while true {
            reader?.resume()
            reader = nil
            let wait = state.withLock { state -> Bool? in
                if state.cancelled { return nil }
                if state.buffered <= capacity { return false }
                state.producerBlocked = true
                return true
            }
            guard let wait else { return false }
            guard wait else { return true }
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                let (seconds, attoseconds) = left.components
                let nanoseconds = max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                if wake.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds))) == .timedOut {
                    state.withLock { $0.producerBlocked = false }
                    cancel()
                    return false
                }
            } else {
                wake.wait()
            }
        }
    }

    /// The transfer ended: nil when the body is complete, else why it stopped.
    package func end(_ error: HTTPError?) {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            // After `cancel()` the end is ours, whatever libcurl made of the abort (a write error).
            if state.end == nil {
                state.end = .some(state.cancelled ? HTTPError(.cancelled, detail: "cancelled") : error)
            }
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume()
    }

    /// Whether `cancel()` was called (the abort is ours, not the peer's).
    var isCancelled: Bool { state.withLock { $0.cancelled } }
}
