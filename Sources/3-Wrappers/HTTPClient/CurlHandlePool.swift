internal import Synchronization

/// A small pool of idle easy handles, reused one request after another to keep connections alive.
///
/// A handle taken from the pool belongs to exactly one request until it is given back. The connection
/// cache is not shared between handles (`CURLSH` connection sharing is not thread-safe).
final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlEasyHandle]>([])
    private let capacity: Int

    /// - Parameter capacity: the most idle handles kept; extra handles are freed when returned.
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The idle handle that last served `origin` (its connection there is kept), else the most recently
    /// used idle one, else a new one.
    func take(for origin: String) -> CurlEasyHandle {
        let handle =
            idle.withLock { handles -> CurlEasyHandle? in
                if let index = handles.lastIndex(where: { $0.origin == origin }) { return handles.remove(at: index) }
                return handles.popLast()
            } ?? CurlEasyHandle()
        handle.origin = origin
        return handle
    }

    /// Resets `handle` and keeps it for the next request (or frees it when the pool is full).
    func giveBack(_ handle: CurlEasyHandle) {
        handle.reset()
        idle.withLock { handles in
            if handles.count < capacity { handles.append(handle) }
        }
    }

    /// How many handles are idle right now (tests).
    var idleCount: Int { idle.withLock { $0.count } }
}
