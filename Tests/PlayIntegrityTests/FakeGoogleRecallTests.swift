import AttestCore
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing

@testable import PlayIntegrity

/// `GoogleDeviceRecallWriter` and the recall read with the real `CurlTransport` against
/// `local-harness/fake_google.py`: the bits belong to the physical phone, not to a token.
@Suite(.serialized) struct FakeGoogleRecallTests {
    struct Rig {
        let fake: FakeGoogleProcess
        let transport = CurlTransport()
        let verifier: PlayIntegrityVerifier
        let writer: GoogleDeviceRecallWriter
        let now = Date()

        init() async throws {
            fake = try await FakeGoogleProcess.start(serviceAccountJSON: TestServiceAccount.shared.json)
            let logger = Logger(sink: CapturingLogSink())
            let tokens = GoogleAccessTokenProvider(
                secret: CountingSecretSource(TestServiceAccount.shared.json),
                transport: transport,
                configuration: .init(tokenEndpoint: fake.tokenURL),
                logger: logger
            )
            var configuration = Fixture.configuration
            configuration.endpoint = fake.baseURL
            verifier = PlayIntegrityVerifier(
                configuration: configuration,
                accessTokens: tokens,
                transport: transport,
                budget: InMemoryDecodeBudget(perDevice: 30),
                quota: SoftCapDecodeQuotaGuard(store: InMemoryDecodeQuotaStore(), softCap: 9000, logger: logger),
                logger: logger
            )
            writer = GoogleDeviceRecallWriter(
                configuration: configuration,
                accessTokens: tokens,
                transport: transport,
                logger: logger
            )
        }

        /// A genuine token made on `phone` (nil: no phone known to the fake).
        func token(on phone: String?) async throws -> String {
            let token = "pi-" + Bytes.hex(Array((0..<12).map { _ in UInt8.random(in: 0...255) }))
            try await fake.registerGenuinePlayVerdict(
                token: token,
                packageName: Fixture.packageName,
                requestHash: Fixture.requestHash,
                certificateDigest: Fixture.digest,
                timestampMillis: Int64(now.timeIntervalSince1970 * 1000),
                physicalDevice: phone,
                transport: transport
            )
            return token
        }

        func recall(_ token: String) async -> PlayCheck {
            await verifier.check(
                token: token,
                deviceID: "device-\(token)",
                expectedRequestHash: Fixture.requestHash,
                now: now
            )
        }

        func failure(_ token: String) async -> DeviceRecallError.Reason? {
            do {
                try await writer.setFirstBit(integrityToken: token, now: now)
                return nil
            } catch {
                return error.reason
            }
        }
    }

    @Test func aWriteSetsThePhonesBitForEveryLaterToken() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let first = try await rig.token(on: "phone-a")
        let before = await rig.recall(first)
        #expect(before.result == .genuine)
        #expect(before.recall == .values(DeviceRecall(bitFirst: false)))

        try await rig.writer.setFirstBit(integrityToken: first, now: rig.now)
        // Another install's token on the same phone reads the bit, with this month as its write date.
        let later = await rig.recall(try await rig.token(on: "phone-a"))
        guard case .values(let recall) = later.recall else {
            Issue.record("no recall values: \(later.recall)")
            return
        }
        #expect(recall.bitFirst && !recall.bitSecond && !recall.bitThird)
        #expect(recall.writeDates.first.map { (200_001...999_912).contains($0) } == true)
        // Another phone is untouched.
        #expect(await rig.recall(try await rig.token(on: "phone-b")).recall == .values(DeviceRecall(bitFirst: false)))
        let stats = try await rig.fake.stats(transport: rig.transport)
        #expect(stats["recall_writes_by_device"]?["phone-a"]?.intValue == 1)
    }

    @Test func onlyTheFirstBitIsWrittenTheOthersKeepTheirValue() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        try await rig.fake.setPhysicalDevice("phone-c", bitSecond: true, transport: rig.transport)
        try await rig.writer.setFirstBit(integrityToken: try await rig.token(on: "phone-c"), now: rig.now)
        let state = try await rig.fake.physicalDevice("phone-c", transport: rig.transport)
        #expect(state.bitFirst && state.bitSecond && !state.bitThird)
    }

    @Test func theFakesFailureModesReachTheirSlugs() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        // A token Google cannot tie to a device.
        #expect(await rig.failure(try await rig.token(on: nil)) == .rejected)
        #expect(await rig.failure("never-issued") == .rejected)
        let token = try await rig.token(on: "phone-d")
        try await rig.fake.setDeviceRecall(writeStatus: 503, transport: rig.transport)
        #expect(await rig.failure(token) == .serverError)
        try await rig.fake.setDeviceRecall(writeStatus: 429, transport: rig.transport)
        #expect(await rig.failure(token) == .rateLimited)
        try await rig.fake.setDeviceRecall(writeStatus: 200, transport: rig.transport)
        #expect(await rig.failure(token) == nil)
        // Verdicts without recall (not turned on for the app): absent, never a clear bit.
        try await rig.fake.setDeviceRecall(enabled: false, transport: rig.transport)
        #expect(await rig.recall(try await rig.token(on: "phone-d")).recall == .absent)
    }

    /// Google's propagation delay: a write shows in verdicts only after it.
    @Test func aWriteShowsOnlyAfterThePropagationDelay() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        try await rig.fake.setDeviceRecall(propagationSeconds: 3, transport: rig.transport)
        try await rig.writer.setFirstBit(integrityToken: try await rig.token(on: "phone-f"), now: rig.now)
        #expect(await rig.recall(try await rig.token(on: "phone-f")).recall == .values(DeviceRecall(bitFirst: false)))
        try await Task.sleep(for: .milliseconds(3300))
        #expect(await rig.recall(try await rig.token(on: "phone-f")).recall.recall?.bitFirst == true)
    }

    /// The write checks our bearer token as the decode does.
    @Test func aWriteWithoutOurAccessTokenIsUnauthorized() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let response = try await rig.transport.send(
            HTTPRequest(
                method: "POST",
                url: rig.fake.baseURL + "/v1/\(Fixture.packageName)/deviceRecall:write",
                headers: [
                    HTTPHeader("Authorization", "Bearer forged"), HTTPHeader("Content-Type", "application/json"),
                ],
                body: JSONValue.object([
                    "integrityToken": .string(try await rig.token(on: "phone-e")),
                    "newValues": .object(["bitFirst": .bool(true)]),
                ]).serializedBytes
            )
        )
        #expect(response.status == 401)
        #expect(!(try await rig.fake.physicalDevice("phone-e", transport: rig.transport)).bitFirst)
    }
}
