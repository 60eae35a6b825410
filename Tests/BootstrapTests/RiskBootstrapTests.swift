import AttestCore
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// Issue 17 points 3 and 4 through the real `bootstrap` (local-harness) with `DEVICE_MARKS=on`, against
/// `local-harness/fake_apple.py` (two bits and the receipt exchange, signing as the test CA) and moto.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct RiskBootstrapTests {
    typealias Rig = DeviceMarksBootstrapTests.Rig
    typealias Install = DeviceMarksBootstrapTests.Install

    /// The registration line of `install`'s device ID.
    static func registration(_ rig: Rig, _ install: Install) async throws -> JSONValue? {
        let suffix = String(install.deviceID.suffix(6))
        var line: JSONValue?
        // The harness reads the bootstrap's log lines on a thread of its own, so on a loaded machine a line
        // can reach `/logs` a moment after the answer it belongs to: wait for it (a missing line stays nil).
        _ = try await rig.harness.eventually(seconds: 5) {
            line = try await rig.lines().last {
                ($0["message"]?.stringValue ?? "").hasPrefix("app attest key re")
                    && ($0["device"]?.stringValue ?? "").hasSuffix(suffix)
            }
            return line != nil
        }
        return line
    }

    /// The decision line of the last metered call.
    static func decision(_ rig: Rig) async throws -> JSONValue? {
        try await rig.lines().last {
            $0["logger"] == .string("attestgate.decision") && $0["route"] == .string("generation")
        }
    }

    @Test func aRiskMetricOfTwelveFlagsTheDevice() async throws {
        let rig = try await Rig()
        let phone = rig.phone()
        try await rig.apple.setRiskMetric(12, device: phone.physicalID, transport: rig.transport)
        var install = try Install(on: phone)
        #expect(try await rig.register(install) == "bound")
        let line = try #require(try await Self.registration(rig, install))
        #expect(line["tier"] == .string("repeat"))
        #expect(line["tierReason"] == .string("risk.flagged"))
        // The metered call is metered as repeat (repeatAllowance 0) and its decision line says why.
        let call = try await rig.call(&install)
        #expect(call.status == 429)
        let decision = try #require(try await Self.decision(rig))
        #expect(decision["tier"] == .string("repeat"))
        #expect(decision["tierReason"] == .string("risk.flagged"))
        // Bit 1 is set at Apple for the physical device (bit 0 too: the mark was clear and claimed first).
        let bits = try await rig.apple.bits(device: phone.physicalID, transport: rig.transport)
        #expect(bits["bit1"] == .bool(true))
        let stats = try await rig.appleStats()
        #expect(stats["exchange_requests"] == .int(1) && stats["receipts_issued"] == .int(1))
        // Another phone with a low metric is a first of its own.
        var other = try Install(on: rig.phone())
        _ = try await rig.register(other)
        #expect(try await Self.registration(rig, other)?["tier"] == .string("first"))
        #expect(try await rig.call(&other).status == 200)
    }

    @Test func theReceiptEndpointDownIsUnknown() async throws {
        let rig = try await Rig()
        try await rig.apple.control("/control/status", .object(["exchange": .int(503)]), transport: rig.transport)
        var install = try Install(on: rig.phone())
        _ = try await rig.register(install)
        let line = try #require(try await Self.registration(rig, install))
        #expect(line["tier"] == .string("unknown"))
        #expect(line["tierReason"] == .string("risk.unavailable"))
        let metric = try await rig.lines().first {
            $0["logger"] == .string("attestgate.decision") && $0["route"] == .string("attest_keys")
        }
        #expect(metric?["unavailable"] == .int(1))
        // onUnknownDevice: repeat on /v1/generate, first on the tutor route.
        #expect(try await rig.call(&install).status == 429)
        #expect(try await rig.call(&install, path: "/v1/tutor/deck-1/card-2").status == 200)
        // Apple was asked once: a key is asked at most once a day, the metered calls asked nothing more.
        #expect(try await rig.appleStats()["exchange_requests"] == .int(1))
    }

    @Test func aReceiptOurCheckRefusesRegistersUnknownUntilAppleVerifiesOne() async throws {
        let rig = try await Rig()
        try await rig.apple.control("/control/status", .object(["exchange": .int(503)]), transport: rig.transport)
        var install = try Install(on: rig.phone())
        let refused = AttestationOptions.genuine.with { $0.receipt.signatureOverContent = true }
        #expect(try await rig.register(install, options: refused) == "bound")
        let line = try #require(try await Self.registration(rig, install))
        #expect(line["tier"] == .string("unknown"))
        #expect(line["tierReason"] == .string("risk.unverified"))
        let warning = try await rig.lines().last { $0["message"] == .string("attestation receipt unverified") }
        #expect(warning?["reason"] == .string("appattest.receipt_signature_invalid"))
        // The key works; its device is metered as unknown.
        #expect(try await rig.call(&install, path: "/v1/tutor/deck-1/card-2").status == 200)
        #expect(try await rig.call(&install).status == 429)

        // With Apple up, the same kind of receipt is exchanged and Apple's RECEIPT verifies: the tier settles.
        try await rig.apple.control("/control/status", .object(["exchange": .int(200)]), transport: rig.transport)
        var settled = try Install(on: rig.phone())
        _ = try await rig.register(settled, options: refused)
        #expect(try await Self.registration(rig, settled)?["tier"] == .string("first"))
        #expect(try await rig.call(&settled).status == 200)
    }
}

extension DeviceMarksBootstrapTests.Rig {
    /// `register(_:)` with an attestation that breaks what `options` says.
    func register(_ install: DeviceMarksBootstrapTests.Install, options: AttestationOptions) async throws -> String? {
        let challenge = try await challenge(install.deviceID)
        let attestation = try install.phone.attest(
            install.key,
            clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: Bytes.fromBase64(challenge)!),
            now: Date(),
            options: options
        )
        let body: [String: JSONValue] = [
            "keyId": .string(Bytes.base64(install.key.keyId)), "attestation": .string(Bytes.base64(attestation)),
            "challenge": .string(challenge), "deviceCheckToken": .string(install.phone.deviceCheckToken()),
        ]
        let response = try await harness.request(
            "POST",
            "/v1/attest/keys",
            headers: [HTTPHeader(WireHeader.deviceID.name, install.deviceID)],
            body: String(decoding: JSONValue.object(body).serializedBytes, as: UTF8.self)
        )
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        return try JSONValue.parse(response.body)["binding"]?.stringValue
    }
}
