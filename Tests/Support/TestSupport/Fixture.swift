public import AttestCore
internal import FoundationEssentials

/// The one fixture loader: test fixtures are plain files in a `Fixtures` folder next to the tests (no bundle
/// resources, nothing outside the repository), found from the calling test file's `#filePath`.
public enum Fixture {
    /// The path of `Fixtures/<name>` next to `testFile`, or next to the sibling test target `folder`
    /// (`AppAttestTests`) when given.
    public static func path(_ name: String, folder: String? = nil, testFile: StaticString = #filePath) -> String {
        var directory = URL(fileURLWithPath: "\(testFile)").deletingLastPathComponent()
        if let folder { directory = directory.deletingLastPathComponent().appendingPathComponent(folder) }
        return directory.appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    /// The bytes of the fixture `name` (see `path`).
    /// - Throws: `FixtureError` when it cannot be read.
    public static func bytes(
        _ name: String,
        folder: String? = nil,
        testFile: StaticString = #filePath
    ) throws
        -> [UInt8]
    {
        let path = path(name, folder: folder, testFile: testFile)
        guard let data = FileManager.default.contents(atPath: path) else { throw FixtureError(path: path) }
        return Array(data)
    }

    /// The fixture as UTF-8 text.
    public static func text(
        _ name: String,
        folder: String? = nil,
        testFile: StaticString = #filePath
    ) throws
        -> String
    {
        String(decoding: try bytes(name, folder: folder, testFile: testFile), as: UTF8.self)
    }

    /// The fixture parsed as JSON.
    public static func json(
        _ name: String,
        folder: String? = nil,
        testFile: StaticString = #filePath
    ) throws
        -> JSONValue
    {
        try JSONValue.parse(try bytes(name, folder: folder, testFile: testFile))
    }
}

/// A fixture that is missing or unreadable.
public struct FixtureError: Error, CustomStringConvertible {
    public let path: String
    public var description: String { "missing fixture \(path)" }
}
