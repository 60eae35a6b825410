internal import Dispatch

/// Runs blocking `work` (a `waitpid`, a pipe read, a child's start-up) on a thread of its own, a serial
/// dispatch queue, and resumes the caller when it returns.
///
/// Swift's cooperative pool has only as many threads as cores (2 on CI): a test that blocks one of them
/// starves every other suite running in parallel, and their deadline-bound tests fail at random. Every
/// blocking wait in test support goes through here instead.
public func offThePool<T: Sendable>(_ label: String, _ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue(label: "attestgate.test.\(label)").async { continuation.resume(returning: work()) }
    }
}

/// `offThePool` for work that throws.
public func offThePool<T: Sendable>(_ label: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await offThePool(label) { Result { try work() } }.get()
}
