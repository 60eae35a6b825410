import AttestCore
import FoundationEssentials
import TestSupport

/// The copied App Attest fixtures (TestSupport's `Fixture`), and the lists of them the suites walk.
enum FixtureLoader {
    static func bytes(_ name: String) -> [UInt8] {
        do { return try Fixture.bytes(name) } catch { fatalError("\(error)") }
    }

    static func text(_ name: String) -> String { String(decoding: bytes(name), as: UTF8.self) }

    static func json(_ name: String) -> JSONValue {
        guard let value = try? JSONValue.parse(bytes(name)) else { fatalError("bad JSON fixture \(name)") }
        return value
    }

    /// Every attestation fixture file (those with an `attestation_b64`).
    static let attestationFixtures: [String] = [
        "apple-guide-2024.json", "apple-guide-2026.json", "bas-d-appattest.json",
        "srinivas1729-appattest-checker-node.json", "thedhejavu-appattest-rs.json",
        "uebelack-node-app-attest-development.json", "uebelack-node-app-attest-production.json",
        "veehaitch-ios-14.2.json", "veehaitch-ios-14.3-beta-2.json", "veehaitch-ios-14.3-beta-3.json",
        "veehaitch-ios-14.3.json", "veehaitch-ios-14.4-beta-1.json", "veehaitch-ios-14.4-beta-2.json",
        "veehaitch-ios-14.4.json",
    ]

    /// Every fixture file that carries assertions.
    static let assertionFixtures: [String] = attestationFixtures + ["uebelack-node-app-attest-assertion.json"]
}

/// One attestation fixture, typed.
struct AttestationFixture {
    let name: String
    let attestation: [UInt8]
    let keyId: [UInt8]
    let clientDataHash: [UInt8]
    let teamId: String
    let bundleId: String
    let production: Bool
    let verifyAt: Date
    let leafNotAfter: Date
    let publicKeyX962: [UInt8]

    init(_ name: String) {
        let json = FixtureLoader.json(name)
        func b64(_ key: String) -> [UInt8] { Bytes.fromBase64(json[key]?.stringValue ?? "") ?? [] }
        func date(_ key: String) -> Date { parseDate(json[key]?.stringValue ?? "") }
        self.name = name
        attestation = b64("attestation_b64")
        keyId = b64("key_id_b64")
        clientDataHash = b64("client_data_hash_b64")
        teamId = json["team_id"]?.stringValue ?? ""
        bundleId = json["bundle_id"]?.stringValue ?? ""
        production = json["production"]?.boolValue ?? false
        verifyAt = date("verify_at")
        leafNotAfter = date("leaf_not_after")
        publicKeyX962 = b64("public_key_x963_b64")
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` in tests, computed independently of the code under test.
func parseDate(_ text: String) -> Date {
    let parts = text.split(whereSeparator: { "-T:Z.".contains($0) }).prefix(6).compactMap { Int($0) }
    precondition(parts.count == 6, "bad date \(text)")
    var components = DateComponents()
    components.year = parts[0]
    components.month = parts[1]
    components.day = parts[2]
    components.hour = parts[3]
    components.minute = parts[4]
    components.second = parts[5]
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(from: components)!
}

func readText(_ path: String) -> String {
    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
}
