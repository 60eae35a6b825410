internal import FoundationEssentials

/// Test fixtures are plain files next to the tests (no bundle resources), found from `#filePath`.
public enum Fixture {
    /// The bytes of `Fixtures/<name>` in the directory of the test file that calls this.
    public static func bytes(_ name: String, testFile: StaticString = #filePath) throws -> [UInt8] {
        let directory = URL(fileURLWithPath: "\(testFile)").deletingLastPathComponent()
        return Array(try Data(contentsOf: directory.appendingPathComponent("Fixtures").appendingPathComponent(name)))
    }
}
