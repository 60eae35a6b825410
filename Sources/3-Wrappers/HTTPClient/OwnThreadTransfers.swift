/// Lets one task run its own buffered `CurlTransport` requests on the thread it is running on, instead of
/// handing each to the handle's queue thread and being resumed from there.
///
/// Each hand-over wakes a thread, and on a host whose cores are busy a woken thread waits for one (on the
/// two shared cores of `make bench`, 0.3-0.4 ms on average per wake-up, `perf sched`): a request costs two
/// such waits, one to start it and one to resume the caller. A Lambda instance serves one invocation at a
/// time, so the invocation's own task (`LambdaRunLoop` marks it) has nothing else to run while it waits for
/// its request: it blocks in `curl_easy_perform` and goes on from there. Only that task does: its child
/// tasks (`async let` requests in parallel) keep the hand-over, so they still run side by side, even on a
/// one-thread cooperative pool; streamed transfers (`open`) always run on their own threads. The blocking
/// is bounded as every request is: by its timeout and deadline, and by cancellation.
public enum OwnThreadTransfers {
    /// The marked task's identity, inherited by its children (which compare it with their own).
    @TaskLocal static var owner: Int?

    /// Runs `operation` with the current task marked: its buffered requests run on its own thread.
    public static func run<T: Sendable>(_ operation: () async throws -> T) async rethrows -> T {
        guard let identity = currentTaskIdentity() else { return try await operation() }
        return try await $owner.withValue(identity) { try await operation() }
    }

    /// Whether the current task is the marked one.
    static var currentTaskIsOwner: Bool {
        guard let owner else { return false }
        return currentTaskIdentity() == owner
    }

    private static func currentTaskIdentity() -> Int? {
        withUnsafeCurrentTask { $0?.hashValue }
    }
}
