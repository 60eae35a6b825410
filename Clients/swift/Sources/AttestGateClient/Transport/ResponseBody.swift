/// A response body as it arrives: an `AsyncSequence` of byte chunks, and a way to stop the transfer.
///
/// Iterate it once. A transfer that breaks ends the iteration with `TransportError` (stage
/// `.responseStarted`).
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    private let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let onCancel: @Sendable () -> Void

    /// A body fed by a transport: `chunks` yields what arrives; `cancel` stops the transfer.
    public init(chunks: AsyncThrowingStream<[UInt8], any Error>, cancel: @escaping @Sendable () -> Void) {
        self.chunks = chunks
        self.onCancel = cancel
    }

    /// A body that is already whole (fakes, tests).
    public init(bytes: [UInt8]) {
        self.chunks = AsyncThrowingStream { continuation in
            if !bytes.isEmpty { continuation.yield(bytes) }
            continuation.finish()
        }
        self.onCancel = {}
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<[UInt8], any Error>.AsyncIterator {
        chunks.makeAsyncIterator()
    }

    /// Stops the transfer (the connection is closed); further iteration ends.
    public func cancel() { onCancel() }

    /// The whole body, at most `limit` bytes.
    /// - Throws: `TransportError` (`transport.response_too_large` past `limit`, else the transfer's error).
    func collect(limit: Int) async throws(TransportError) -> [UInt8] {
        var bytes: [UInt8] = []
        do {
            for try await chunk in self {
                guard bytes.count + chunk.count <= limit else {
                    cancel()
                    throw TransportError(.responseTooLarge, stage: .responseStarted, detail: "over \(limit) bytes")
                }
                bytes += chunk
            }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.failed, stage: .responseStarted, detail: "\(error)")
        }
        return bytes
    }
}
