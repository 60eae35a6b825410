import AttestCore
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// The fraud-risk metric through the real `bootstrap` (local-harness) with `DEVICE_MARKS=on`, against
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
        // Bit 1 is set at Apple for the physical device (bit 0 is not: the tier recorded is not `first`).
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

    /// A client can corrupt the receipt inside its attestation (the attestation's signature does not
    /// cover it). Our check refusing it is `repeat` (`risk.unverified`), never better than no receipt: on a
    /// route with `onUnknownDevice: first` it gets the `repeatAllowance` (0). Before the fix it was `unknown`,
    /// and that route served it. The key still registers.
    @Test func aReceiptOurCheckRefusesIsRepeatUntilAppleVerifiesOne() async throws {
        let rig = try await Rig()
        try await rig.apple.control("/control/status", .object(["exchange": .int(503)]), transport: rig.transport)
        let phone = rig.phone()
        var install = try Install(on: phone)
        let refused = AttestationOptions.genuine.with { $0.receipt.signatureOverContent = true }
        #expect(try await rig.register(install, options: refused) == "bound")
        let line = try #require(try await Self.registration(rig, install))
        #expect(line["tier"] == .string("repeat"))
        #expect(line["tierReason"] == .string("risk.unverified"))
        let warning = try await rig.lines().last { $0["message"] == .string("attestation receipt unverified") }
        #expect(warning?["reason"] == .string("appattest.receipt_signature_invalid"))
        // The key works; its device is metered as repeat even where unknown devices are served.
        #expect(try await rig.call(&install, path: "/v1/tutor/deck-1/card-2").status == 429)
        #expect(try await rig.call(&install).status == 429)
        // No bit is written for it at Apple: it is this request's content, not a flag.
        let bits = try await rig.apple.bits(device: phone.physicalID, transport: rig.transport)
        #expect(bits["bit0"] != .bool(true) && bits["bit1"] != .bool(true))

        // With Apple up, the same kind of receipt is exchanged and Apple's RECEIPT verifies: the tier settles.
        try await rig.apple.control("/control/status", .object(["exchange": .int(200)]), transport: rig.transport)
        var settled = try Install(on: rig.phone())
        _ = try await rig.register(settled, options: refused)
        #expect(try await Self.registration(rig, settled)?["tier"] == .string("first"))
        #expect(try await rig.call(&settled).status == 200)
    }

    /// Registering while Apple's receipt exchange is down records `unknown` and writes no bit 0, so
    /// once Apple is back the device's next registration reads a clear mark and gets `first`. Before the fix
    /// bit 0 was written with the `unknown`, and the settle read that mark as "already used": `repeat`.
    @Test func anExchangeOutageAtRegistrationLeavesTheMarkClearForTheSettle() async throws {
        let rig = try await Rig()
        try await rig.apple.control("/control/status", .object(["exchange": .int(503)]), transport: rig.transport)
        let phone = rig.phone()
        var install = try Install(on: phone)
        #expect(try await rig.register(install) == "bound")
        #expect(try await Self.registration(rig, install)?["tier"] == .string("unknown"))
        let bits = try await rig.apple.bits(device: phone.physicalID, transport: rig.transport)
        #expect(bits["bit0"] != .bool(true), "bit 0 written for an unknown tier: \(bits)")
        #expect(try await rig.call(&install).status == 429)

        // Apple back: the app registers again (a resend of the same key) and the tier settles as first.
        try await rig.apple.control("/control/status", .object(["exchange": .int(200)]), transport: rig.transport)
        #expect(try await rig.register(install) == "re_registered")
        _ = try await rig.harness.eventually(seconds: 5) { try await rig.registeredTiers().count == 2 }
        #expect(try await rig.registeredTiers() == ["unknown", "first"])
        #expect(try await rig.call(&install).status == 200)
        // Now bit 0 is set: the next device ID on this phone is a repeat.
        #expect(try await rig.apple.bits(device: phone.physicalID, transport: rig.transport)["bit0"] == .bool(true))
        var fresh = try Install(on: phone)
        _ = try await rig.register(fresh)
        #expect(try await Self.registration(rig, fresh)?["tier"] == .string("repeat"))
        #expect(try await rig.call(&fresh).status == 429)
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
