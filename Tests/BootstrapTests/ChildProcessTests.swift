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
}
