import AttestCore
import Crypto
import FoundationEssentials
import Glibc
import SimulatedDevice
import Testing

@testable import AppAttest

/// `make run` shares one synthetic CA between two processes: the demo signs with the saved keys and
/// `bootstrap` trusts the saved root. A reloaded CA must therefore still produce attestations that chain
/// to the root file, and a missing or damaged folder must be refused, not half-loaded.
@Suite struct SimulatedCAStorageTests {
    static func temporaryFolder() throws -> String {
        var template = Array("/tmp/attestgate-ca-test-XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template))
        return String(cString: made)
    }

    static func remove(_ folder: String) {
        for name in ["root", "intermediate", "receipt-ca", "receipt-signer"] {
            unlink(folder + "/\(name).pem")
            unlink(folder + "/\(name)-key.pem")
        }
        rmdir(folder)
    }

    @Test func aReloadedCASignsAttestationsThatChainToTheSavedRoot() throws {
        let folder = try Self.temporaryFolder()
        defer { Self.remove(folder) }
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let original = try SimulatedAppleCA(now: now)
        try original.save(to: folder)

        let reloaded = try SimulatedAppleCA(loadingFrom: folder)
        #expect(reloaded.root == original.root)
        #expect(reloaded.intermediate == original.intermediate)
        let rootPEM = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: SimulatedAppleCA.rootPath(in: folder))),
            as: UTF8.self
        )
        let trustedRoot = try Certificate(pemRepresentation: rootPEM)

        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .development,
            authority: reloaded
        )
        let key = try SimulatedAppAttestKey()
        let clientDataHash = Digest.sha256(Array("challenge".utf8))
        let attestation = try device.attest(key, clientDataHash: clientDataHash, now: now)
        let verifier = AppAttestVerifier(
            teamId: "ABCDE12345",
            bundleIds: ["com.example.gate"],
            environment: .development,
            trust: .synthetic(root: trustedRoot)
        )
        let attested = try verifier.verifyAttestation(
            keyId: key.keyId,
            attestation: attestation,
            clientDataHash: clientDataHash,
            now: now
        )
        #expect(attested.keyId == key.keyId)

        // A second, fresh CA is not the saved one: its attestations do not chain to the saved root.
        let stranger = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .development,
            authority: try SimulatedAppleCA(now: now)
        )
        #expect(throws: AppAttestError.self) {
            try verifier.verifyAttestation(
                keyId: key.keyId,
                attestation: try stranger.attest(key, clientDataHash: clientDataHash, now: now),
                clientDataHash: clientDataHash,
                now: now
            )
        }
    }

    @Test func aMissingOrDamagedFolderIsRefused() throws {
        let folder = try Self.temporaryFolder()
        defer { Self.remove(folder) }
        #expect(throws: SimulatedAppleCA.StorageError.self) { try SimulatedAppleCA(loadingFrom: folder) }

        try SimulatedAppleCA(now: Date(timeIntervalSince1970: 1_790_000_000)).save(to: folder)
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: folder + "/intermediate-key.pem"))
        #expect(throws: SimulatedAppleCA.StorageError.self) { try SimulatedAppleCA(loadingFrom: folder) }
    }
}
