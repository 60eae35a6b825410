import FoundationEssentials
import Glibc

/// Files the bootstrap tests hand to child processes (upstream key files), in one directory of this test
/// process, removed when the process exits: a key file must outlive every bootstrap that may read it,
/// which a test's own scope does not promise, and the runs must not leave files behind in /tmp.
enum TestFiles {
    static let directory: String = {
        var template = Array("/tmp/attestgate-bootstrap-tests-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed: \(errno)") }
        atexit { try? FileManager.default.removeItem(atPath: TestFiles.directory) }
        return String(cString: made)
    }()

    /// A path in `directory` for a file named `name`.
    static func path(_ name: String) -> String { directory + "/" + name }
}
