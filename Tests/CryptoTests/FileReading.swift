import Glibc

struct FixtureReadError: Error { let path: String }

/// Reads a fixture file next to the tests (no Foundation).
func readFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw FixtureReadError(path: path) }
    defer { fclose(file) }
    var out = [UInt8]()
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        out.append(contentsOf: chunk.prefix(count))
    }
    return out
}
