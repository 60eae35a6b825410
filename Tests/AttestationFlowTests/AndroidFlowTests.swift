import AppTestSupport
import AttestCore
import CivilTime
import DynamoDB
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

/// Android through the real router: Play Integrity against `local-harness/fake_google.py` (token
/// endpoint that checks our RS256 JWT, decode endpoint with registered verdicts) and moto, enforce mode.
@Suite struct AndroidFlowTests {
    /// The app with Play Integrity pointed at a fresh fake Google; `onUnavailable: allow` on purpose: the
    /// merge must turn Play's `unavailable` into a refusal whatever the route's policy says.
    static func start(
        _ extra: [String: String?] = [:],
        clock: TestClock = TestClock()
    ) async throws -> (GateTestApp, FakeGoogleProcess) {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try FakePlay.serviceAccountJSON())
        do {
            var settings = FakePlay.settings(fake)
            for (name, value) in extra { settings[name] = value }
            let app = try await GateTestApp(
                routes: GateTestApp.route(mode: "enforce"),
                settings: settings,
                clock: clock
            )
            return (app, fake)
        } catch {
            fake.stop()
            throw error
        }
    }

    static func stat(_ fake: FakeGoogleProcess, _ name: String) async throws -> Int64 {
        try #require(try await fake.stats(transport: CurlTransport())[name]?.intValue)
    }

    static func decodes(_ fake: FakeGoogleProcess, token: String) async throws -> Int64 {
        try await fake.stats(transport: CurlTransport())["decodes_by_token"]?[token]?.intValue ?? 0
    }

    static func expectRefused(
        _ response: GateTestResponse,
        _ app: GateTestApp,
        reason: String,
        _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 403, comment, sourceLocation: sourceLocation)
        #expect(response.error == "attestation_required", comment, sourceLocation: sourceLocation)
        #expect(app.decisions.last?["proof"] == .string("play_integrity"), comment, sourceLocation: sourceLocation)
        #expect(app.decisions.last?["reason"] == .string(reason), comment, sourceLocation: sourceLocation)
    }

    @Test func aGenuineAndroidDevicePassesInEnforce() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let deviceID = randomDeviceID()
            var challenge: String? = nil
            for call in 1...3 {
                let android = try await client.androidCall(deviceID: deviceID, challenge: challenge)
                try await client.registerGenuineVerdict(android, on: fake)
                let response = try await client.send(android)
                #expect(response.status == 200, "call \(call): \(app.decisions.last?["reason"] ?? .null)")
                #expect(response.json?["upstream"] == .string("fake"))
                #expect(app.decisions.last?["outcome"] == .string("genuine"))
                #expect(app.decisions.last?["proof"] == .string("play_integrity"))
                challenge = response.header(WireHeader.nextChallenge.key)
                #expect(challenge != nil)
            }
            // One access token for all three (cached), three decodes, three budget units.
            #expect(try await Self.stat(fake, "tokens_issued") == 1)
            #expect(try await Self.stat(fake, "decode_requests") == 3)
            let day = LocalCalendar.utc.day(at: app.clock.now()).iso
            #expect(try await app.row("DEVICE#\(deviceID)", "PLAY_DECODE#\(day)")?["decodes"]?.intValue == 3)
        }
    }

    /// `ANDROID_CERT_SHA256` as Play Console shows it (colon-separated hex, either case) matches the
    /// base64url digest Play Integrity reports for the same certificate; another certificate still fails.
    @Test(arguments: [
        "90:67:6D:DA:B6:73:EB:23:DF:B1:95:31:C5:70:C5:5D:A0:B9:87:51:D6:A6:F3:73:51:44:D7:77:D2:1B:F0:FC",
        "90676ddab673eb23dfb19531c570c55da0b98751d6a6f3735144d777d21bf0fc",
        "17:95:2B:5C:F8:67:05:BA:DE:87:74:3F:5A:33:1E:FE:4C:98:2B:FB:4D:A0:D2:FD:5D:70:BF:C2:35:CF:79:E3, "
            + "90:67:6d:da:b6:73:eb:23:df:b1:95:31:c5:70:c5:5d:a0:b9:87:51:d6:a6:f3:73:51:44:d7:77:d2:1b:f0:fc",
    ])
    func playConsoleHexFingerprintsMatchPlaysDigest(_ setting: String) async throws {
        let (app, fake) = try await Self.start(["ANDROID_CERT_SHA256": setting])
        defer { fake.stop() }
        try await app.test { client in
            let android = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(android, on: fake)
            let response = try await client.send(android)
            #expect(response.status == 200, "\(app.decisions.last?["reason"] ?? .null)")
            #expect(app.decisions.last?["outcome"] == .string("genuine"))
        }
    }

    @Test func anotherCertificatesHexFingerprintIsStillRefused() async throws {
        let other = "17:95:2B:5C:F8:67:05:BA:DE:87:74:3F:5A:33:1E:FE:4C:98:2B:FB:4D:A0:D2:FD:5D:70:BF:C2:35:CF:79:E3"
        let (app, fake) = try await Self.start(["ANDROID_CERT_SHA256": other])
        defer { fake.stop() }
        try await app.test { client in
            let android = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(android, on: fake)
            Self.expectRefused(try await client.send(android), app, reason: "play.cert_digest_mismatch")
        }
    }

    /// Each verdict field missing, wrong or stale (and a classic-request token) → 403 in enforce.
    @Test func everyMissingWrongOrStaleVerdictFieldIsRefused() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let now = app.clock.now()
            let millis = String(Int64(now.timeIntervalSince1970 * 1000))
            let package = JSONValue.string(FakePlay.packageName)
            func appIntegrity(_ fields: [String: JSONValue]) -> JSONValue {
                var base: [String: JSONValue] = [
                    "appRecognitionVerdict": .string("PLAY_RECOGNIZED"), "packageName": package,
                    "certificateSha256Digest": .array([.string(FakePlay.certificateDigest)]),
                ]
                for (key, value) in fields { base[key] = value }
                return .object(base.filter { $0.value != .null })
            }
            // (case, reason, payload overrides given the call's genuine requestHash)
            let cases: [(String, String, (String) -> [String: JSONValue])] = [
                (
                    "package missing", "play.package_missing",
                    { hash in
                        ["requestDetails": .object(["requestHash": .string(hash), "timestampMillis": .string(millis)])]
                    }
                ),
                (
                    "package wrong", "play.package_mismatch",
                    { hash in
                        [
                            "requestDetails": .object([
                                "requestPackageName": .string("com.example.clone"), "requestHash": .string(hash),
                                "timestampMillis": .string(millis),
                            ])
                        ]
                    }
                ),
                (
                    "requestHash missing", "play.request_hash_missing",
                    { _ in
                        [
                            "requestDetails": .object([
                                "requestPackageName": package, "timestampMillis": .string(millis),
                            ])
                        ]
                    }
                ),
                (
                    "requestHash of another request", "play.request_hash_mismatch",
                    { _ in
                        [
                            "requestDetails": .object([
                                "requestPackageName": package, "timestampMillis": .string(millis),
                                "requestHash": .string(Bytes.hex(Array(repeating: UInt8(0xab), count: 32))),
                            ])
                        ]
                    }
                ),
                (
                    "classic request (nonce, no requestHash)", "play.request_hash_missing",
                    { hash in
                        [
                            "requestDetails": .object([
                                "requestPackageName": package, "timestampMillis": .string(millis),
                                "nonce": .string(Bytes.base64URL(Array(hash.utf8))),
                            ])
                        ]
                    }
                ),
                (
                    "timestamp missing", "play.timestamp_missing",
                    { hash in
                        ["requestDetails": .object(["requestPackageName": package, "requestHash": .string(hash)])]
                    }
                ),
                (
                    "timestamp stale", "play.timestamp_stale",
                    { hash in
                        let old = String(Int64(now.timeIntervalSince1970 * 1000) - 10 * 60 * 1000)
                        return [
                            "requestDetails": .object([
                                "requestPackageName": package, "requestHash": .string(hash),
                                "timestampMillis": .string(old),
                            ])
                        ]
                    }
                ),
                (
                    "app verdict missing", "play.app_verdict_missing",
                    { _ in
                        ["appIntegrity": appIntegrity(["appRecognitionVerdict": .null])]
                    }
                ),
                (
                    "app not recognized", "play.app_not_recognized",
                    { _ in
                        ["appIntegrity": appIntegrity(["appRecognitionVerdict": .string("UNRECOGNIZED_VERSION")])]
                    }
                ),
                (
                    "certificate digest missing", "play.cert_digest_missing",
                    { _ in
                        ["appIntegrity": appIntegrity(["certificateSha256Digest": .null])]
                    }
                ),
                (
                    "certificate digest wrong", "play.cert_digest_mismatch",
                    { _ in
                        [
                            "appIntegrity": appIntegrity([
                                "certificateSha256Digest": .array([.string("c2lnbmVkIGJ5IHNvbWVvbmUgZWxzZQ")])
                            ])
                        ]
                    }
                ),
                (
                    "device verdict missing", "play.device_verdict_missing",
                    { _ in
                        ["deviceIntegrity": .object([:])]
                    }
                ),
                (
                    "device verdict empty (emulator, root)", "play.device_integrity_insufficient",
                    { _ in
                        ["deviceIntegrity": .object(["deviceRecognitionVerdict": .array([])])]
                    }
                ),
                (
                    "only basic integrity", "play.device_integrity_insufficient",
                    { _ in
                        [
                            "deviceIntegrity": .object([
                                "deviceRecognitionVerdict": .array([.string("MEETS_BASIC_INTEGRITY")])
                            ])
                        ]
                    }
                ),
            ]
            for (name, reason, overrides) in cases {
                let android = try await client.androidCall(deviceID: randomDeviceID())
                try await client.registerGenuineVerdict(android, on: fake, overrides: overrides(android.requestHash))
                Self.expectRefused(try await client.send(android), app, reason: reason, "\(name)")
                #expect(try await Self.decodes(fake, token: android.token) == 1, "\(name)")
            }
            // The same set-up with nothing overridden passes (the cases above fail for their field only).
            let control = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(control, on: fake)
            #expect(try await client.send(control).status == 200)
        }
    }

    @Test func aReplayedTokenMeetsASpentChallenge() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let android = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(android, on: fake)
            #expect(try await client.send(android).status == 200)
            // The same token, challenge and client data again: the challenge is spent before any decode.
            Self.expectRefused(try await client.send(android), app, reason: "challenge.unspendable")
            #expect(try await Self.decodes(fake, token: android.token) == 1)
            // Replayed with a fresh challenge of the same device: the token's requestHash no longer matches.
            let fresh = try await client.androidCall(deviceID: android.deviceID)
            var headers = fresh.headers()
            headers[WireHeader.playIntegrityToken.name] = android.token
            let response = try await client.execute(fresh.path, headers: headers, body: fresh.body)
            Self.expectRefused(response, app, reason: "play.request_hash_mismatch")
        }
    }

    @Test func theThirtyFirstDecodeOfADayIsRefusedWithoutCallingGoogle() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let deviceID = randomDeviceID()
            var challenge: String? = nil
            for call in 1...30 {
                let android = try await client.androidCall(deviceID: deviceID, challenge: challenge)
                try await client.registerGenuineVerdict(android, on: fake)
                let response = try await client.send(android)
                #expect(response.status == 200, "call \(call)")
                challenge = response.header(WireHeader.nextChallenge.key)
            }
            #expect(try await Self.stat(fake, "decode_requests") == 30)
            let android = try await client.androidCall(deviceID: deviceID, challenge: challenge)
            try await client.registerGenuineVerdict(android, on: fake)
            Self.expectRefused(try await client.send(android), app, reason: "play.budget_exhausted")
            #expect(try await Self.stat(fake, "decode_requests") == 30)
            #expect(try await Self.decodes(fake, token: android.token) == 0)
            // Another device ID has its own budget.
            let other = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(other, on: fake)
            #expect(try await client.send(other).status == 200)
        }
    }

    @Test func aRevokedKeyIsUnavailableWithoutSpendingBudgetAndRefusedByTheMerge() async throws {
        // Fixed: the 60 s back-off is measured on the app's clock only.
        let (app, fake) = try await Self.start(clock: TestClock(fixed: Date()))
        defer { fake.stop() }
        try await app.test { client in
            try await fake.setTokenEndpointStatus(401, transport: CurlTransport())
            let deviceID = randomDeviceID()
            let android = try await client.androidCall(deviceID: deviceID)
            try await client.registerGenuineVerdict(android, on: fake)
            let response = try await client.send(android)
            Self.expectRefused(response, app, reason: "play.credentials_unavailable")
            #expect(app.decisions.last?["unavailable"] == .int(1))
            #expect(app.decisions.last?["providerUnavailable"] == .bool(true))
            // Our own credential failure cost the device nothing and never reached the decode endpoint.
            let day = LocalCalendar.utc.day(at: app.clock.now()).iso
            #expect(try await app.row("DEVICE#\(deviceID)", "PLAY_DECODE#\(day)") == nil)
            #expect(try await Self.stat(fake, "decode_requests") == 0)
            #expect(try await Self.stat(fake, "token_requests") == 1)

            // The key is fixed at once, but within 60 s the dropped key is not read again nor tried.
            try await fake.setTokenEndpointStatus(200, transport: CurlTransport())
            app.clock.advance(by: 30)
            let soon = try await client.androidCall(deviceID: deviceID)
            try await client.registerGenuineVerdict(soon, on: fake)
            Self.expectRefused(
                try await client.send(soon),
                app,
                reason: "play.credentials_unavailable"
            )
            #expect(try await Self.stat(fake, "token_requests") == 1)
            // After the minute the key is read again and the device passes.
            app.clock.advance(by: 31)
            let later = try await client.androidCall(deviceID: deviceID)
            try await client.registerGenuineVerdict(later, on: fake)
            #expect(try await client.send(later).status == 200)
            #expect(try await Self.stat(fake, "token_requests") == 2)
        }
    }

    @Test func googleDownIsUnavailableAndTheMergeRefusesIt() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            try await fake.setDecodeStatus(500, transport: CurlTransport())
            let android = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(android, on: fake)
            let response = try await client.send(android)
            Self.expectRefused(response, app, reason: "play.decode_server_error")
            #expect(app.decisions.last?["outcome"] == .string("rejected"))
            #expect(app.decisions.last?["unavailable"] == .int(1))
            #expect(app.decisions.last?["providerUnavailable"] == .bool(true))
            // Google back: the same kind of call passes.
            try await fake.setDecodeStatus(200, transport: CurlTransport())
            let next = try await client.androidCall(deviceID: android.deviceID)
            try await client.registerGenuineVerdict(next, on: fake)
            #expect(try await client.send(next).status == 200)
        }
    }
}
