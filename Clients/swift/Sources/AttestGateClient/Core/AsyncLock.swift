/// A first-come, first-served lock for async code: one holder at a time, the others suspended (not
/// blocking a thread) in the order they asked. Actors alone do not serialise work that awaits inside.
actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            held = false
        } else {
            waiters.removeFirst().resume()  // the lock passes straight to the next holder
        }
    }
}

/// One `AsyncLock` per App Attest key: Apple's enclave signs one assertion at a time per key, and the
/// counters then reach the server in the order they were made.
actor AssertionLanes {
    private var lanes: [String: AsyncLock] = [:]

    /// The lock of `keyID` (made on first use; a key's lane is dropped with `forget`).
    func lane(_ keyID: String) -> AsyncLock {
        if let lane = lanes[keyID] { return lane }
        let lane = AsyncLock()
        lanes[keyID] = lane
        return lane
    }

    func forget(_ keyID: String) { lanes[keyID] = nil }
}
