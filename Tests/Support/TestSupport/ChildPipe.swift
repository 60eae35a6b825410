internal import Glibc
internal import Synchronization

/// Pipes for test children that no other child inherits.
///
/// Tests run in parallel and several of them spawn children (the local harness, the fakes, the CLI). A
/// pipe end without close-on-exec that is open in this process while another test spawns goes to that
/// child too, which then holds it for its whole life: a reader waits for an end of file that comes only
/// when that unrelated child exits, and a harness whose stdin is closed to stop it never sees end of file.
/// Glibc's module does not offer `pipe2`, so each pipe is made and marked close-on-exec under `spawnLock`,
/// which every spawn here holds too: no spawn can happen between the two steps. The file actions' dup2 onto
/// 0, 1 and 2 gives each child its own ends without the flag.
public enum ChildPipe {
    private static let spawnLock = Mutex(())

    /// A pipe (`[read, write]`) with both ends close-on-exec, or nil when `pipe` fails.
    public static func make() -> [Int32]? {
        spawnLock.withLock { _ in
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fds
        }
    }

    /// Runs `body` (a `posix_spawn`) while no pipe is being made.
    public static func spawning<T>(_ body: () throws -> T) rethrows -> T {
        try spawnLock.withLock { _ in try body() }
    }
}
