import Glibc
import TestSupport

/// Runs the operator CLI as it ships: the built `bootstrap` (next to the test bundle) started through a link
/// named `attestgate` (docs/deploy.md: one binary, dispatching on `argv[0]`), with arguments, stdin and
/// environment.
enum CLIRunner {
    struct Outcome: Sendable {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// The directory holding the test binary, where SwiftPM also puts the `bootstrap` executable.
    static let binDirectory: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        var path = String(decoding: buffer.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while let last = path.last, last != "/" { path.removeLast() }
        // The test binary sits inside `<name>.xctest` on Linux (a file, not a directory).
        return path
    }()

    /// The one shipped binary.
    static let bootstrap = binDirectory + "bootstrap"

    /// `attestgate` beside it, a relative symbolic link to `bootstrap` as in the zip (`make build` makes the
    /// same link in the release directory); made here when missing or pointing elsewhere.
    static let binary: String = {
        let link = binDirectory + "attestgate"
        var target = [CChar](repeating: 0, count: 256)
        let length = readlink(link, &target, target.count - 1)
        if length < 0
            || String(decoding: target[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) != "bootstrap"
        {
            unlink(link)
            precondition(symlink("bootstrap", link) == 0, "cannot link \(link) to bootstrap: \(errno)")
        }
        return link
    }()

    /// Runs `bootstrap` started as `program` (a path whose last component is what `argv[0]` shows).
    static func run(
        program: String,
        _ arguments: [String],
        environment: [String: String] = [:]
    ) async -> Outcome {
        await offThePool("attestgate-cli") {
            runBlocking(program, arguments, stdin: [], environment: environment)
        }
    }

    /// Runs the command to its end; the spawn, the pipes and `waitpid` block a thread of their own
    /// (`offThePool`), never the cooperative pool, so the suites may run in parallel.
    static func run(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:]) async -> Outcome {
        await offThePool("attestgate-cli") { runBlocking(binary, arguments, stdin: stdin, environment: environment) }
    }

    private static func runBlocking(
        _ binary: String,
        _ arguments: [String],
        stdin: [UInt8],
        environment: [String: String]
    ) -> Outcome {
        // Close-on-exec (ChildPipe): a child another test spawns meanwhile must not hold the output pipe open,
        // or `drain` would wait for that child's exit.
        guard let input = ChildPipe.make(), let output = ChildPipe.make(), let errors = ChildPipe.make() else {
            preconditionFailure("cannot make pipes: \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        for fd in input + output + errors { posix_spawn_file_actions_addclose(&actions, fd) }

        var env = ["PATH=/usr/bin:/bin"]
        for (key, value) in environment { env.append("\(key)=\(value)") }
        let argv = ([binary] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = ChildPipe.spawning { posix_spawn(&pid, binary, &actions, nil, argv, envp) }
        precondition(spawned == 0, "cannot start \(binary): \(spawned)")
        close(input[0])
        close(output[1])
        close(errors[1])
        // A command that refuses its arguments exits before it reads its input: the write then fails with EPIPE,
        // which must not end the whole test process with SIGPIPE.
        _ = ignoreBrokenPipes
        _ = stdin.withUnsafeBytes { write(input[1], $0.baseAddress, $0.count) }
        close(input[1])
        let out = drain(output[0])
        let err = drain(errors[0])
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return Outcome(status: (status >> 8) & 0xff, stdout: out, stderr: err)
    }

    /// SIGPIPE ignored in the test process, once: a write to a pipe whose reader is gone returns EPIPE instead.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    private static func drain(_ fd: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk.prefix(count)
        }
        close(fd)
        return String(decoding: bytes, as: UTF8.self)
    }
}
