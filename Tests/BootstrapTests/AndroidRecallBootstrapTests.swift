import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

/// Android device tiers through the real `bootstrap` (local-harness/lambda_harness.py), moto and
/// `local-harness/fake_google.py`: one simulated phone minting 20 device IDs gets one free tier with
/// `PLAY_DEVICE_RECALL=on`; with recall off a phone at `LEVEL_4` is refused.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct AndroidRecallBootstrapTests {
    static let packageName = "com.example.attestgate"
    static let digest = "kGdt2rZz6yPfsZUxxXDFXaC5h1HWpvNzUUTXd9Ib8Pw"

    static func serviceAccountJSON() throws -> [UInt8] {
        JSONValue.object([
            "type": .string("service_account"),
            "private_key_id": .string(Bytes.hex(SecureRandom().bytes(20))),
            "private_key": .string(try GeneratedRSAKey.shared().pkcs8PEM),
            "client_email": .string("pi-decoder@attestgate-tests.iam.gserviceaccount.com"),
        ]).serializedBytes
    }

    /// The bootstrap with Play Integrity on `fake` and an enforce route with 2 free calls a day (the
    /// default repeat allowance, 0/0).
    static func harness(
        _ fake: FakeGoogleProcess,
        _ upstream: BootstrapTests.Upstream,
        recall: Bool
    ) async throws
        -> LocalHarness
    {
        let route = JSONValue.array([
            .object([
                "method": .string("POST"), "path": .string("/v1/generate"), "feature": .string("generation"),
                "mode": .string("enforce"), "upstreamPath": .string("/generate"),
                "allowance": .object(["firstDay": .int(2), "laterDays": .int(2)]),
            ])
        ])
        var extra = [
            "ROUTES": String(decoding: route.serializedBytes, as: UTF8.self),
            "ANDROID_PACKAGE": packageName, "ANDROID_CERT_SHA256": digest,
            "GOOGLE_SERVICE_ACCOUNT_FILE": fake.folder + "/service-account.json",
            "GOOGLE_TOKEN_ENDPOINT": fake.tokenURL, "PLAY_INTEGRITY_ENDPOINT": fake.baseURL,
        ]
        if recall { extra["PLAY_DEVICE_RECALL"] = "on" }
        return try await LocalHarness(environment: await BootstrapTests.environment(upstream, extra), deadlineMs: 8000)
    }

    /// One genuine call for `deviceID` from `phone`: a challenge from the bootstrap, a token the fake
    /// decodes into a passing verdict made on that phone, the request-bound headers.
    static func call(
        _ harness: LocalHarness,
        _ fake: FakeGoogleProcess,
        phone: String,
        deviceID: String
    ) async throws -> Int {
        let issued = try await harness.request(
            "POST",
            "/v1/attest/challenge",
            headers: [HTTPHeader(WireHeader.deviceID.name, deviceID)]
        )
        let challenge = try #require(try JSONValue.parse(issued.body)["challenge"]?.stringValue)
        let body = #"{"prompt":"hello"}"#
        let clientData = ClientData(challenge: challenge, method: "POST", path: "/v1/generate", body: Array(body.utf8))
        let token = "pi-" + Bytes.base64URL(SecureRandom().bytes(24))
        try await fake.registerGenuinePlayVerdict(
            token: token,
            packageName: packageName,
            requestHash: clientData.playRequestHash,
            certificateDigest: digest,
            timestampMillis: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)),
            physicalDevice: phone,
            transport: CurlTransport()
        )
        let response = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [
                HTTPHeader(WireHeader.deviceID.name, deviceID), HTTPHeader(WireHeader.challenge.name, challenge),
                HTTPHeader(WireHeader.playIntegrityToken.name, token),
                HTTPHeader(WireHeader.clientData.name, clientData.header),
                HTTPHeader("Content-Type", "application/json"),
            ],
            body: body
        )
        return response.status
    }

    static func uuid() -> String { UUID().uuidString.lowercased() }

    @Test func twentyDeviceIDsOnOneAndroidPhoneGetOneFreeTier() async throws {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try Self.serviceAccountJSON())
        defer { fake.stop() }
        let upstream = try BootstrapTests.echoUpstream()
        let harness = try await Self.harness(fake, upstream, recall: true)
        let phone = "phone-" + Bytes.hex(SecureRandom().bytes(6))
        let ids = (0..<20).map { _ in Self.uuid() }
        var statuses: [Int] = []
        for id in ids { statuses.append(try await Self.call(harness, fake, phone: phone, deviceID: id)) }
        // The first ID has the free tier; the 19 others are repeats with no free calls.
        #expect(statuses == [200] + Array(repeating: 429, count: 19))
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: ids[0]) == 200)
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: ids[0]) == 429)
        let writes = try await fake.stats(transport: CurlTransport())["recall_writes_by_device"]?[phone]?.intValue
        #expect(writes == 1)
        #expect(upstream.server.requests.count == 2)
    }

    /// Several app instances on one phone (a work profile, a second user, a clone) calling at once each
    /// read the recall bit clear before any write shows in a verdict: each gets `first`. Google's write is
    /// not conditional and a verdict names no device, so nothing can serialise them; the bound is the
    /// integrity tokens the phone mints before its first write shows (up to Google's propagation delay),
    /// within the route's `maxDeviceActivity` (docs/playintegrity.md, "Device recall"). This test holds the
    /// bound: K instances at once get K free tiers, and none after the write shows.
    @Test func appInstancesOnOnePhoneCallingAtOnceGetOneFreeTierEachOnlyUntilTheWriteShows() async throws {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try Self.serviceAccountJSON())
        defer { fake.stop() }
        try await fake.setDeviceRecall(propagationSeconds: 2, transport: CurlTransport())
        let upstream = try BootstrapTests.echoUpstream()
        let harness = try await Self.harness(fake, upstream, recall: true)
        let phone = "phone-" + Bytes.hex(SecureRandom().bytes(6))
        let instances = 4
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<instances {
                group.addTask { try await Self.call(harness, fake, phone: phone, deviceID: Self.uuid()) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: instances))
        try await Task.sleep(for: .milliseconds(2_500))
        // The write shows now: another instance's new device ID is a repeat (no free calls by default).
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: Self.uuid()) == 429)
        #expect(upstream.server.requests.count == instances)
    }

    @Test func recallOffButAPhoneAtLevelFourIsRefused() async throws {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try Self.serviceAccountJSON())
        defer { fake.stop() }
        let upstream = try BootstrapTests.echoUpstream()
        let harness = try await Self.harness(fake, upstream, recall: false)
        let phone = "phone-" + Bytes.hex(SecureRandom().bytes(6))
        // Recall off: each new ID on the phone gets its free tier (tiering off).
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: Self.uuid()) == 200)
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: Self.uuid()) == 200)
        // The phone turns hyperactive: its proofs are refused (route maximum LEVEL_3).
        try await fake.setPhysicalDevice(phone, activity: "LEVEL_4", transport: CurlTransport())
        #expect(try await Self.call(harness, fake, phone: phone, deviceID: Self.uuid()) == 403)
        #expect(upstream.server.requests.count == 2)
    }
}
