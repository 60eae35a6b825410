import AttestCore
import Crypto
import FoundationEssentials
import Glibc
import SimulatedDevice
import TestSupport
import Testing

/// `attestgate verify-attestation` / `verify-assertion` run as a real process (docs/api.md §4).
@Suite struct VerifyCommandTests {
    static func fixture(_ name: String) -> JSONValue {
        (try? Fixture.json(name, folder: "AppAttestTests")) ?? .null
    }

    static func json(_ text: String) -> JSONValue { (try? JSONValue.parse(Array(text.utf8))) ?? .null }

    let guide = fixture("apple-guide-2026.json")

    func guideArguments(_ extra: [String]) -> [String] {
        [
            "verify-attestation", "--team-id", "1234567890", "--bundle-id", "com.example.myapp",
            "--key-id", guide["key_id_b64"]?.stringValue ?? "",
        ] + extra
    }

    var guideStdin: [UInt8] { Array((guide["attestation_b64"]?.stringValue ?? "").utf8) + [0x0a] }

    @Test func acceptsApplesSampleAtItsTime() async throws {
        let outcome = await CLIRunner.run(
            guideArguments([
                "--client-data-hash", guide["client_data_hash_b64"]?.stringValue ?? "", "--at", "2026-04-21T18:13:12Z",
            ]),
            stdin: guideStdin
        )
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let result = Self.json(outcome.stdout)
        #expect(result["result"]?.stringValue == "accepted")
        #expect(result["keyId"]?.stringValue == guide["key_id_b64"]?.stringValue)
        #expect(result["environment"]?.stringValue == "production")
        let publicKey = try #require(Bytes.fromBase64(result["publicKey"]?.stringValue ?? ""))
        #expect(
            try ECPublicKey(derRepresentation: publicKey).x962Representation
                == Bytes.fromBase64(guide["public_key_x963_b64"]?.stringValue ?? "")
        )
    }

    /// `--at` as `date -Iseconds` prints it, with fractions, and with a numeric offset east or west.
    @Test(arguments: [
        "2026-04-21T18:13:12+00:00", "2026-04-21T18:13:12.5Z", "2026-04-22T03:13:12+09:00",
        "2026-04-21T13:13:12.125-05:00",
    ])
    func atAcceptsISO8601WithAnOffsetOrFractions(_ at: String) async {
        let outcome = await CLIRunner.run(
            guideArguments(["--client-data-hash", guide["client_data_hash_b64"]?.stringValue ?? "", "--at", at]),
            stdin: guideStdin
        )
        #expect(outcome.status == 0, "\(at): \(outcome.stderr)")
        #expect(Self.json(outcome.stdout)["result"]?.stringValue == "accepted")
    }

    @Test func rejectsItWithTheRealClockAndNamesTheReason() async {
        let outcome = await CLIRunner.run(
            guideArguments(["--client-data-hash", guide["client_data_hash_b64"]?.stringValue ?? ""]),
            stdin: guideStdin
        )
        #expect(outcome.status == 1)
        #expect(
            Self.json(outcome.stdout)
                == .object(["result": .string("rejected"), "reason": .string("appattest.cert_expired")])
        )
    }

    @Test func challengeIsHashedForDevelopmentCaptures() async {
        let capture = Self.fixture("veehaitch-ios-14.4.json")
        let outcome = await CLIRunner.run(
            [
                "verify-attestation", "--team-id", "6MURL8TA57", "--bundle-id",
                "de.vincent-haupert.apple-appattest-poc",
                "--key-id", capture["key_id_b64"]?.stringValue ?? "", "--challenge", "d3VyemVscGZyb3Bm",
                "--development", "--at", "2021-01-23T12:13:35Z",
            ],
            stdin: Array((capture["attestation_b64"]?.stringValue ?? "").utf8)
        )
        #expect(outcome.status == 0, "\(outcome.stdout) \(outcome.stderr)")
        #expect(Self.json(outcome.stdout)["environment"]?.stringValue == "development")
    }

    @Test(arguments: [
        [String](),
        ["--client-data-hash", "AAAA", "--challenge", "AAAA", "--at", "2026-04-21T18:13:12Z"],
        ["--client-data-hash", "not base64!", "--at", "2026-04-21T18:13:12Z"],
        ["--client-data-hash", "AAAA", "--at", "yesterday"],
        ["--client-data-hash", "AAAA", "--at", "2026-04-21T18:13:12"],
        ["--client-data-hash", "AAAA", "--at", "2026-04-21T18:13:12+25:00"],
        ["--client-data-hash", "AAAA", "--unknown"],
    ])
    func usageErrorsExitTwo(_ extra: [String]) async {
        let outcome = await CLIRunner.run(guideArguments(extra), stdin: guideStdin)
        #expect(outcome.status == 2)
        #expect(outcome.stdout.isEmpty)
    }

    @Test func unknownCommandExitsTwo() async {
        #expect(await CLIRunner.run(["frobnicate"]).status == 2)
    }

    @Test func trustRootIsRefusedInProductionAndHonouredInDevelopment() async throws {
        let now = Date()
        let authority = try SimulatedAppleCA(now: now)
        let path = "/tmp/attestgate-cli-test-root-\(getpid()).pem"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(authority.rootPEM.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let device = SimulatedDevice(
            teamId: "ABCDE12345",
            bundleId: "com.example.gate",
            environment: .development,
            authority: authority
        )
        let key = try SimulatedAppAttestKey()
        let challenge = SecureRandom().bytes(32)
        let attestation = try device.attest(key, clientDataHash: Digest.sha256(challenge), now: now)
        let arguments = [
            "verify-attestation", "--team-id", "ABCDE12345", "--bundle-id", "com.example.gate",
            "--key-id", Bytes.base64(key.keyId), "--challenge", Bytes.base64(challenge), "--development",
            "--trust-root", path,
        ]
        for environment in [[:], ["ATTESTGATE_ENV": "production"]] {
            let refused = await CLIRunner.run(arguments, stdin: attestation, environment: environment)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("--trust-root"))
        }
        let accepted = await CLIRunner.run(
            arguments,
            stdin: attestation,
            environment: ["ATTESTGATE_ENV": "development"]
        )
        #expect(accepted.status == 0, "\(accepted.stdout) \(accepted.stderr)")
        #expect(Self.json(accepted.stdout)["keyId"]?.stringValue == Bytes.base64(key.keyId))
        #expect(Self.json(accepted.stdout)["receipt"]?.stringValue == "verified")
        // A receipt our check refuses does not refuse the attestation: it is reported (docs/appattest.md).
        let unverified = await CLIRunner.run(
            arguments,
            stdin: try device.attest(
                key,
                clientDataHash: Digest.sha256(challenge),
                now: now,
                options: .genuine.with { $0.receipt.signatureOverContent = true }
            ),
            environment: ["ATTESTGATE_ENV": "development"]
        )
        #expect(unverified.status == 0, "\(unverified.stdout) \(unverified.stderr)")
        #expect(Self.json(unverified.stdout)["receipt"]?.stringValue == "unverified")
        #expect(Self.json(unverified.stdout)["receiptReason"]?.stringValue == "appattest.receipt_signature_invalid")
    }

    @Test func verifiesAFixtureAssertionAndRefusesItsReplay() async throws {
        let capture = Self.fixture("bas-d-appattest.json")
        let assertion = try #require(capture["assertions"]?.arrayValue?.first)
        func run(counter: String) async -> CLIRunner.Outcome {
            await CLIRunner.run(
                [
                    "verify-assertion", "--team-id", "35MFYY2JY5", "--bundle-id", "co.chiff.attestation-test",
                    "--public-key", assertion["public_key_x963_b64"]?.stringValue ?? "", "--counter", counter,
                    "--client-data", Bytes.base64(Array((assertion["client_data_utf8"]?.stringValue ?? "").utf8)),
                ],
                stdin: Array((assertion["assertion_b64"]?.stringValue ?? "").utf8)
            )
        }
        let accepted = await run(counter: "0")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(Self.json(accepted.stdout) == .object(["result": .string("accepted"), "counter": .int(3)]))
        let replayed = await run(counter: "3")
        #expect(replayed.status == 1)
        #expect(Self.json(replayed.stdout)["reason"]?.stringValue == "appattest.assertion_counter_replay")
        #expect(await run(counter: "minus one").status == 2)
    }
}
