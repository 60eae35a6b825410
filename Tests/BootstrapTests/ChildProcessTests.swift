import FoundationEssentials
import Glibc
import TestSupport
import Testing

/// The test children (the local harness, the fakes, through them every bootstrap) must be stoppable.
@Suite struct ChildProcessTests {
    /// A child spawned from a test thread starts with no signal blocked: SIGTERM reaches it, so
    /// `terminate()` and `stop()` end it instead of leaving it running after the test run.
    @Test func aChildStartsWithNoSignalBlocked() async throws {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let child = try ChildProcess(["sleep", "30"], environment: ["PATH": path])
        let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
        let blocked = status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }
        await child.stop()
        #expect(blocked?.split(separator: "\t").last == "0000000000000000", "\(blocked ?? "no SigBlk line")")
    }

    /// A child's pipes are close-on-exec: a child spawned later (by any test, on any thread) does not hold
    /// them. Here the later child would hold the first one's stdin open, so closing it would not reach the
    /// first child as end of file until the later one exited (the harness stops on that end of file).
    @Test func aLaterChildDoesNotHoldAnEarlierChildsStdin() async throws {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let reader = try ChildProcess(
            ["python3", "-c", "import sys; sys.stdin.read(); print('eof', flush=True)"],
            environment: ["PATH": path]
        )
        let bystander = try ChildProcess(["sleep", "5"], environment: ["PATH": path])
        reader.closeInput()
        #expect(await reader.nextLine() == "eof")
        // End of file came while the bystander still runs (not when its exit dropped an inherited copy).
        var status: Int32 = 0
        #expect(waitpid(bystander.pid, &status, WNOHANG) == 0)
        await bystander.stop()
        await reader.stop()
    }
}
