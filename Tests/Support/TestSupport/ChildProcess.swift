internal import Dispatch
internal import Glibc
internal import Synchronization

/// A child process for integration tests (the local harness, which runs the real `bootstrap`), with
/// its stdin and stdout on pipes. Closing stdin tells the harness to stop; `stop()` makes sure. Nothing
/// here blocks Swift's cooperative pool: reads and waits run on threads of their own (`offThePool`).
public final class ChildProcess: Sendable {
    public let pid: Int32
    private let stdinFD: Int32
    private let stdoutFD: Int32
    private let state = Mutex<(buffer: [UInt8], exited: Bool, inputClosed: Bool)>(([], false, false))

    /// Spawns `arguments[0]` (looked up in `PATH`) with exactly `environment`.
    /// Where every child's stderr is appended (harness logs for debugging a failed run).
    public static let stderrLog = "/tmp/attestgate-test-children.log"

    public init(_ arguments: [String], environment: [String: String]) throws {
        // Close-on-exec (ChildPipe): a child another test spawns later must not hold this one's stdin open
        // after `stop()` closes it (the harness stops on that end of file).
        guard let input = ChildPipe.make(), let output = ChildPipe.make() else { throw SpawnError(errno: errno) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addclose(&actions, input[1])
        posix_spawn_file_actions_addclose(&actions, output[0])
        // stderr goes to a log file, never to the test runner's own stderr: a child orphaned by a crashed
        // test process would otherwise hold `swift test`'s output pipe open and hang the whole run.
        posix_spawn_file_actions_addopen(&actions, 2, Self.stderrLog, O_WRONLY | O_APPEND | O_CREAT, 0o644)

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The child starts with no signal blocked and SIGTERM/SIGINT at their defaults. Tests run on
        // threads (Dispatch's, the cooperative pool's) that block every signal, and a spawned process
        // inherits that mask: SIGTERM would then never reach it, and every harness, fake server and
        // bootstrap a test started outlived the test run.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let rc = ChildPipe.spawning { posix_spawnp(&child, arguments[0], &actions, &attributes, argv, envp) }
        close(input[0])
        close(output[1])
        guard rc == 0 else {
            close(input[1])
            close(output[0])
            throw SpawnError(errno: rc)
        }
        self.pid = child
        self.stdinFD = input[1]
        self.stdoutFD = output[0]
    }

    /// The next line of standard output, or nil at end of file; the read happens off the cooperative pool.
    public func nextLine() async -> String? {
        await offThePool("child-read") { self.readLine() }
    }

    /// The next line of standard output, or nil at end of file. Blocks the calling thread: from async code,
    /// call `nextLine()`.
    public func readLine() -> String? {
        while true {
            if let line = state.withLock({ state -> String? in
                guard let newline = state.buffer.firstIndex(of: 0x0a) else { return nil }
                let line = String(decoding: state.buffer[..<newline], as: UTF8.self)
                state.buffer.removeFirst(newline + 1)
                return line
            }) {
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if count <= 0 { return nil }
            state.withLock { $0.buffer.append(contentsOf: chunk[..<count]) }
        }
    }

    /// Closes the child's stdin (it reads end of file) and nothing else; `stop()` later does not close it twice.
    public func closeInput() {
        state.withLock { state in
            guard !state.inputClosed else { return }
            state.inputClosed = true
            close(stdinFD)
        }
    }

    /// Closes stdin, sends SIGTERM and waits (off the cooperative pool) until the child is gone: up to 5 s,
    /// then SIGKILL. Safe to call more than once, and together with `terminate()`.
    public func stop() async {
        guard let reap = signalStop() else { return }
        await offThePool("child-reap") { reap() }
    }

    /// Closes stdin and sends SIGTERM without waiting; the child is reaped on a thread of its own (up to
    /// 5 s, then SIGKILL). Safe to call more than once; `deinit` calls it.
    public func terminate() {
        guard let reap = signalStop() else { return }
        DispatchQueue(label: "attestgate.test.child-reap").async { reap() }
    }

    /// The first call closes stdin and sends SIGTERM, and returns the blocking reaper; later calls nil.
    private func signalStop() -> (@Sendable () -> Void)? {
        let (first, inputOpen) = state.withLock { state -> (Bool, Bool) in
            defer { (state.exited, state.inputClosed) = (true, true) }
            return (!state.exited, !state.inputClosed)
        }
        guard first else { return nil }
        if inputOpen { close(stdinFD) }
        kill(pid, SIGTERM)
        let (pid, stdoutFD) = (self.pid, self.stdoutFD)
        return {
            var status: Int32 = 0
            defer { close(stdoutFD) }
            for _ in 0..<500 {
                if waitpid(pid, &status, WNOHANG) == pid { return }
                usleep(10_000)
            }
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
    }

    /// Waits (off the cooperative pool) for the child `pid` of this process to exit.
    /// - Returns: its exit status (`WEXITSTATUS`), or 128 + the signal that ended it.
    public static func exitStatus(of pid: Int32) async -> Int32 {
        await offThePool("waitpid") {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
    }

    deinit { terminate() }

    public struct SpawnError: Error {
        public var errno: Int32
    }
}
