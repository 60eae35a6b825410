import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import Glibc
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// Device marks through the real `bootstrap` (local-harness) with `DEVICE_MARKS=on`, against
/// `local-harness/fake_apple.py` and moto: one physical iPhone, one free tier.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct DeviceMarksBootstrapTests {
    static let teamID = "TEAMID1234"
    static let bundleID = "com.example.attestgate"
    static let keyID = "DCKEY12345"

    /// The route: 3 free calls for `first`, the default repeat allowance (0/0) and `onUnknownDevice`
    /// (`repeat`); a second route opts unknown devices in.
    static let routes = #"""
        [{"method":"POST","path":"/v1/generate","feature":"generation","mode":"enforce","binding":"request",
          "upstreamPath":"/generate","allowance":{"firstDay":3,"laterDays":3}},
         {"method":"POST","path":"/v1/tutor/{deckId}/{cardId}","feature":"tutor","mode":"enforce",
          "binding":"request","upstreamPath":"/tutor","allowance":{"firstDay":3,"laterDays":3},
          "onUnknownDevice":"first"}]
        """#

    /// The harness, fake Apple and the CA the function trusts, with their files.
    final class Rig {
        private(set) var harness: LocalHarness
        /// The function's settings, kept for `restart`.
        private(set) var settings: [String: String]
        let apple: FakeAppleProcess
        let authority: SimulatedAppleCA
        let upstream: BootstrapTests.Upstream
        let folder: String
        let transport = CurlTransport()

        init(extra: [String: String] = [:]) async throws {
            let now = Date()
            var template = Array("/tmp/attestgate-marks-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw SetupError() }
            folder = String(cString: made)
            authority = try SimulatedAppleCA(now: now.addingTimeInterval(-3600))
            let p8 = try P256PrivateKey()
            try Data(authority.rootPEM.utf8).write(to: URL(fileURLWithPath: folder + "/root.pem"))
            try Data(p8.pemRepresentation.utf8).write(to: URL(fileURLWithPath: folder + "/devicecheck.p8"))
            apple = try FakeAppleProcess(keyPEM: p8.pemRepresentation, keyID: DeviceMarksBootstrapTests.keyID)
            upstream = try BootstrapTests.echoUpstream()
            // The fake exchanges App Attest receipts as Apple, signing under this CA (the fraud-risk metric).
            let signing = authority.receiptSigning
            try await apple.setReceiptSigner(
                keyPEM: signing.keyPEM,
                certificates: signing.certificates,
                transport: CurlTransport()
            )
            var settings = [
                "APPLE_TEAM_ID": DeviceMarksBootstrapTests.teamID,
                "APPLE_BUNDLE_IDS": DeviceMarksBootstrapTests.bundleID,
                "APP_ATTEST_ENVIRONMENT": "development", "APP_ATTEST_TRUST_ROOT": folder + "/root.pem",
                "DEVICECHECK_KEY_ID": DeviceMarksBootstrapTests.keyID,
                "DEVICECHECK_PRIVATE_KEY_FILE": folder + "/devicecheck.p8", "DEVICECHECK_ENDPOINT": apple.baseURL,
                "APP_ATTEST_RECEIPT_ENDPOINT": apple.baseURL,
                "DEVICE_MARKS": "on", "ROUTES": DeviceMarksBootstrapTests.routes,
            ]
            for (name, value) in extra { settings[name] = value }
            self.settings = settings
            harness = try await LocalHarness(
                environment: await BootstrapTests.environment(upstream, settings),
                deadlineMs: 10_000
            )
        }

        /// Stops the function and starts it again on the same table with `changes` to its settings (a deploy).
        func restart(_ changes: [String: String]) async throws {
            for (name, value) in changes { settings[name] = value }
            harness = try await LocalHarness(
                environment: await BootstrapTests.environment(upstream, settings),
                deadlineMs: 10_000
            )
        }

        deinit {
            apple.stop()
            upstream.server.stop()
            unlink(upstream.keyFile)
            for name in ["root.pem", "devicecheck.p8"] { unlink(folder + "/" + name) }
            rmdir(folder)
        }

        /// A physical iPhone of the app's team (its own physical identity).
        func phone() -> SimulatedDevice {
            SimulatedDevice(
                teamId: DeviceMarksBootstrapTests.teamID,
                bundleId: DeviceMarksBootstrapTests.bundleID,
                environment: .development,
                authority: authority
            )
        }

        func challenge(_ deviceID: String) async throws -> String {
            let response = try await harness.request(
                "POST",
                "/v1/attest/challenge",
                headers: [HTTPHeader(WireHeader.deviceID.name, deviceID)]
            )
            let answer = try JSONValue.parse(response.body)
            return try #require(answer["challenge"]?.stringValue, "challenge: \(response.status)")
        }

        /// Registers the install's key the way the app does, with a fresh DeviceCheck token unless `token`
        /// is false. Returns the binding.
        func register(_ install: Install, token: Bool = true) async throws -> String? {
            let challenge = try await challenge(install.deviceID)
            let attestation = try install.phone.attest(
                install.key,
                clientDataHash: ChallengeBinding.appAttestClientDataHash(challenge: Bytes.fromBase64(challenge)!),
                now: Date()
            )
            var body: [String: JSONValue] = [
                "keyId": .string(Bytes.base64(install.key.keyId)), "attestation": .string(Bytes.base64(attestation)),
                "challenge": .string(challenge),
            ]
            if token { body["deviceCheckToken"] = .string(install.phone.deviceCheckToken()) }
            let response = try await harness.request(
                "POST",
                "/v1/attest/keys",
                headers: [HTTPHeader(WireHeader.deviceID.name, install.deviceID)],
                body: String(decoding: JSONValue.object(body).serializedBytes, as: UTF8.self)
            )
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let answer = try JSONValue.parse(response.body)
            // The tier is never told to the client.
            #expect(answer.objectValue?.keys.sorted() == ["binding"])
            return answer["binding"]?.stringValue
        }

        /// One metered call with an App Attest assertion over its request.
        func call(
            _ install: inout Install,
            path: String = "/v1/generate",
            deviceCheckToken: Bool = false
        ) async throws -> HTTPResponse {
            let challenge = try await challenge(install.deviceID)
            let body = #"{"prompt":"hello"}"#
            let clientData = ClientData(challenge: challenge, method: "POST", path: path, body: Array(body.utf8))
            let assertion = try install.phone.assert(&install.key, clientDataHash: clientData.appAttestClientDataHash)
            var headers = [
                HTTPHeader(WireHeader.deviceID.name, install.deviceID),
                HTTPHeader(WireHeader.challenge.name, challenge),
                HTTPHeader(WireHeader.appAttestKeyID.name, Bytes.base64(install.key.keyId)),
                HTTPHeader(WireHeader.clientData.name, clientData.header),
                HTTPHeader(WireHeader.appAttestAssertion.name, Bytes.base64(assertion)),
            ]
            if deviceCheckToken {
                headers.append(HTTPHeader(WireHeader.deviceCheckToken.name, install.phone.deviceCheckToken()))
            }
            return try await harness.request("POST", path, headers: headers, body: body)
        }

        /// Every JSON line the function logged.
        func lines() async throws -> [JSONValue] {
            let logs = try await harness.get("/logs").arrayValue ?? []
            return logs.compactMap { $0["line"]?.stringValue }.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        }

        /// The tier each registration logged, in order.
        func registeredTiers() async throws -> [String] {
            try await lines().filter { ($0["message"]?.stringValue ?? "").hasPrefix("app attest key re") }
                .compactMap { $0["tier"]?.stringValue }
        }

        func appleStats() async throws -> JSONValue { try await apple.stats(transport: transport) }
    }

    /// One app install on a phone: the device ID (Keychain) and its current App Attest key.
    struct Install {
        let phone: SimulatedDevice
        let deviceID: String
        var key: SimulatedAppAttestKey

        init(on phone: SimulatedDevice, deviceID: String = UUID().uuidString.lowercased()) throws {
            self.phone = phone
            self.deviceID = deviceID
            key = try SimulatedAppAttestKey()
        }

        /// A reinstall: the Keychain keeps the device ID; the key is new.
        mutating func reinstall() throws { key = try SimulatedAppAttestKey() }
    }

    @Test func oneIPhoneMintingTwentyDeviceIDsGetsOneFreeTier() async throws {
        let rig = try await Rig()
        let phone = rig.phone()
        var installs = try (0..<20).map { _ in try Install(on: phone) }
        for install in installs { #expect(try await rig.register(install) == "bound") }
        #expect(try await rig.registeredTiers() == ["first"] + Array(repeating: "repeat", count: 19))

        for index in installs.indices {
            let response = try await rig.call(&installs[index])
            if index == 0 {
                #expect(response.status == 200)
            } else {
                #expect(response.status == 429, "install \(index)")
                #expect(response.body == Array(#"{"error":"quota_exhausted"}"#.utf8))
            }
        }
        // The first keeps its whole allowance.
        #expect(try await rig.call(&installs[0]).status == 200)
        #expect(try await rig.call(&installs[0]).status == 200)
        #expect(try await rig.call(&installs[0]).status == 429)
        // Another phone is a first of its own.
        var other = try Install(on: rig.phone())
        _ = try await rig.register(other)
        #expect(try await rig.call(&other).status == 200)
        // Every registration asked Apple once; only the two clear ones wrote bit 0.
        let stats = try await rig.appleStats()
        #expect(stats["query_requests"] == .int(21) && stats["update_requests"] == .int(2))
        let bits = try await rig.apple.bits(device: phone.physicalID, transport: rig.transport)
        #expect(bits["bit0"] == .bool(true) && bits["bit1"] == .bool(false))
    }

    @Test func aReinstallKeepingItsDeviceIDKeepsFirst() async throws {
        let rig = try await Rig()
        var install = try Install(on: rig.phone())
        #expect(try await rig.register(install) == "bound")
        #expect(try await rig.call(&install).status == 200)
        try install.reinstall()
        #expect(try await rig.register(install) == "rebound")
        #expect(try await rig.registeredTiers() == ["first", "first"])
        #expect(try await rig.call(&install).status == 200)
        // The reinstall asked Apple nothing: its tier was settled.
        #expect(try await rig.appleStats()["query_requests"] == .int(1))
        // A fresh install on the same phone (a new device ID) is a repeat.
        var fresh = try Install(on: install.phone)
        _ = try await rig.register(fresh)
        #expect(try await rig.call(&fresh).status == 429)
    }

    @Test func aMarkOlderThanTheMarkMonthsGivesFirstAgain() async throws {
        let rig = try await Rig(extra: ["DEVICE_MARK_MONTHS": "3"])
        let today = LocalMonth.now()
        let secondHand = rig.phone()
        try await rig.apple.setBits(
            device: secondHand.physicalID,
            bit0: true,
            bit1: false,
            month: today.minus(4),
            transport: rig.transport
        )
        let recent = rig.phone()
        try await rig.apple.setBits(
            device: recent.physicalID,
            bit0: true,
            bit1: false,
            month: today.minus(3),
            transport: rig.transport
        )
        var old = try Install(on: secondHand)
        var young = try Install(on: recent)
        _ = try await rig.register(old)
        _ = try await rig.register(young)
        #expect(try await rig.registeredTiers() == ["first", "repeat"])
        #expect(try await rig.call(&old).status == 200)
        #expect(try await rig.call(&young).status == 429)
        // Claiming the second-hand phone stamped its mark with this month.
        let bits = try await rig.apple.bits(device: secondHand.physicalID, transport: rig.transport)
        #expect(bits["last_update_time"] == .string(today.minus(0)))
    }

    @Test func aMissingTokenIsRepeat() async throws {
        let rig = try await Rig()
        var install = try Install(on: rig.phone())
        _ = try await rig.register(install, token: false)
        #expect(try await rig.registeredTiers() == ["repeat"])
        #expect(try await rig.call(&install).status == 429)
        #expect(try await rig.appleStats()["query_requests"] == .int(0))
    }

    @Test func appleDownIsUnknownAndFollowsOnUnknownDevice() async throws {
        let rig = try await Rig()
        try await rig.apple.control("/control/status", .object(["devicecheck": .int(503)]), transport: rig.transport)
        var install = try Install(on: rig.phone())
        _ = try await rig.register(install)
        #expect(try await rig.registeredTiers() == ["unknown"])
        let registration = try #require(
            try await rig.lines().first {
                $0["logger"] == .string("attestgate.decision") && $0["route"] == .string("attest_keys")
            }
        )
        #expect(registration["unavailable"] == .int(1))
        // `onUnknownDevice` `repeat` (the default) refuses; the route that opts in serves.
        #expect(try await rig.call(&install).status == 429)
        #expect(try await rig.call(&install, path: "/v1/tutor/deck-1/card-2").status == 200)
        // Apple back: the next registration (a resend of the same key) settles the tier.
        try await rig.apple.control("/control/status", .object(["devicecheck": .int(200)]), transport: rig.transport)
        #expect(try await rig.register(install) == "re_registered")
        #expect(try await rig.registeredTiers() == ["unknown", "first"])
        #expect(try await rig.call(&install).status == 200)
    }

    @Test func throttledUnreachableOrHangingAppleIsUnknownNeverFirst() async throws {
        let rig = try await Rig()
        let modes: [JSONValue] = [
            .object(["devicecheck": .int(429)]), .object(["devicecheck": .int(200), "down": .bool(true)]),
            // Longer than the 3 s DeviceCheck cap: the call times out within the invocation.
            .object(["down": .bool(false), "hang": .int(4)]),
        ]
        for mode in modes {
            try await rig.apple.control("/control/status", mode, transport: rig.transport)
            var install = try Install(on: rig.phone())
            _ = try await rig.register(install)
            #expect(try await rig.call(&install).status == 429, "\(mode)")
        }
        #expect(try await rig.registeredTiers() == ["unknown", "unknown", "unknown"])
        let details = try await rig.lines().compactMap { $0["markDetail"]?.stringValue }
        #expect(
            details == [
                "devicecheck.bits_rate_limited", "devicecheck.bits_unavailable", "devicecheck.bits_unavailable",
            ]
        )
    }
}

struct SetupError: Error {}

/// The current UTC month and the months before it, as `YYYY-MM`.
struct LocalMonth {
    let year: Int
    let month: Int

    static func now() -> LocalMonth {
        var seconds = time_t(Date().timeIntervalSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return LocalMonth(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1)
    }

    func minus(_ months: Int) -> String {
        let ordinal = year * 12 + (month - 1) - months
        let text = String(ordinal % 12 + 1)
        return String(ordinal / 12) + "-" + (text.count == 1 ? "0" : "") + text
    }
}
