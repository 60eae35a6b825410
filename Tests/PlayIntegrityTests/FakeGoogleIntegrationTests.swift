import AttestCore
import Crypto
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

@testable import PlayIntegrity

/// The real `CurlTransport` against `local-harness/fake_google.py` on a free loopback port.
@Suite(.serialized) struct FakeGoogleIntegrationTests {
    static let deviceID = "7f1b6a3e-2c4d-4e5f-8a9b-0c1d2e3f4a5b"
    static let challenge = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA="
    static let expectedHash = ChallengeBinding.playRequestHash(deviceID: deviceID, challengeBase64: challenge)

    struct Rig {
        let fake: FakeGoogleProcess
        let transport = CurlTransport()
        let secret: CountingSecretSource
        let tokens: GoogleAccessTokenProvider
        let budget: InMemoryDecodeBudget
        let quotaStore = InMemoryDecodeQuotaStore()
        let verifier: PlayIntegrityVerifier

        init(secretJSON: [UInt8] = TestServiceAccount.shared.json, decodeTimeout: Duration = .seconds(5)) async throws {
            fake = try await FakeGoogleProcess.start(
                serviceAccountJSON: TestServiceAccount.shared.json,
                fixtures: Fixture.directory
            )
            secret = CountingSecretSource(secretJSON)
            let logger = Logger(sink: CapturingLogSink())
            tokens = GoogleAccessTokenProvider(
                secret: secret,
                transport: transport,
                configuration: .init(tokenEndpoint: fake.tokenURL),
                logger: logger
            )
            budget = InMemoryDecodeBudget(perDevice: 30)
            var configuration = Fixture.configuration
            configuration.endpoint = fake.baseURL
            configuration.decodeTimeout = decodeTimeout
            verifier = PlayIntegrityVerifier(
                configuration: configuration,
                accessTokens: tokens,
                transport: transport,
                budget: budget,
                quota: SoftCapDecodeQuotaGuard(store: quotaStore, softCap: 9000, logger: logger),
                logger: logger
            )
        }

        /// Registers `token` as a genuine standard verdict issued at `now`, bound to the expected hash.
        func registerGenuine(_ token: String, now: Date) async throws {
            try await fake.registerGenuinePlayVerdict(
                token: token,
                packageName: Fixture.packageName,
                requestHash: FakeGoogleIntegrationTests.expectedHash,
                certificateDigest: Fixture.digest,
                timestampMillis: Int64(now.timeIntervalSince1970 * 1000),
                transport: transport
            )
        }

        func verify(_ token: String, now: Date) async -> PlayIntegrityResult {
            await verifier.verify(
                token: token,
                deviceID: FakeGoogleIntegrationTests.deviceID,
                expectedRequestHash: FakeGoogleIntegrationTests.expectedHash,
                now: now
            )
        }

        func stat(_ name: String) async throws -> Int64 {
            try #require(try await fake.stats(transport: transport)[name]?.intValue)
        }
    }

    @Test func genuineAndroidDevicePasses() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("genuine.token", now: now)
        #expect(await rig.verify("genuine.token", now: now) == .genuine)
        #expect(await rig.verify("genuine.token", now: now.addingTimeInterval(1)) == .genuine)
        #expect(try await rig.stat("tokens_issued") == 1)
        #expect(try await rig.stat("decode_requests") == 2)
        #expect(rig.budget.used(Self.deviceID) == 2)
    }

    @Test func fixtureVerdictsServedByTheFakeAreRejected() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        for fixture in [
            "decode_classic_doc_example.json", "decode_standard_virtual_integrity.json", "decode_testing_response.json",
        ] {
            try await rig.fake.control(
                "/control/verdict",
                .object(["token": .string(fixture), "fixture": .string(fixture)]),
                transport: rig.transport
            )
            #expect(await rig.verify(fixture, now: SystemClock().now()).outcome == .rejected)
        }
        // A token Google cannot decode (garbage, or one it never issued) is a 400: rejected.
        #expect(await rig.verify("never.registered", now: SystemClock().now()) == .rejected(.decodeInvalidToken))
    }

    /// What the merge makes of it (rejected, counted as unavailable) is GateTests/ProviderMergeTests and
    /// AttestationFlowTests/AndroidFlowTests: the merge lives in Gate.
    @Test func googleDownIsUnavailable() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("t", now: now)
        for status in [500, 503, 429, 403] {
            try await rig.fake.control(
                "/control/decode",
                .object(["status": .int(Int64(status))]),
                transport: rig.transport
            )
            let result = await rig.verify("t", now: now)
            #expect(result.outcome == .unavailable)
        }
    }

    @Test func aHangingDecodeTimesOutAsUnavailable() async throws {
        let rig = try await Rig(decodeTimeout: .seconds(1))
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("t", now: now)
        try await rig.fake.control("/control/decode", .object(["hang": .int(5)]), transport: rig.transport)
        #expect(await rig.verify("t", now: now) == .unavailable(.decodeTransport))
    }

    @Test func revokedKeyIsUnavailableWithoutSpendingBudgetOrReReadingTheSecret() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("t", now: now)
        try await rig.fake.setTokenEndpointStatus(401, transport: rig.transport)
        #expect(await rig.verify("t", now: now) == .unavailable(.credentialsUnavailable))
        #expect(await rig.verify("t", now: now.addingTimeInterval(30)) == .unavailable(.credentialsUnavailable))
        #expect(rig.budget.used(Self.deviceID) == 0)
        #expect(rig.secret.reads == 1)
        #expect(try await rig.stat("token_requests") == 1)
        #expect(try await rig.stat("decode_requests") == 0)
        // The key is back (rotated): after the minute the secret is read again and the check passes.
        try await rig.fake.setTokenEndpointStatus(200, transport: rig.transport)
        #expect(await rig.verify("t", now: now.addingTimeInterval(61)) == .genuine)
        #expect(rig.secret.reads == 2)
    }

    @Test func aKeyGoogleDoesNotKnowIsRefusedByTheSignatureCheck() async throws {
        let stranger = try TestServiceAccount()
        let rig = try await Rig(secretJSON: stranger.json)
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("t", now: now)
        #expect(await rig.verify("t", now: now) == .unavailable(.credentialsUnavailable))
        #expect(rig.budget.used(Self.deviceID) == 0)
        let refusals = try await rig.fake.stats(transport: rig.transport)["token_refusals"]
        #expect(refusals?["signature"]?.intValue == 1)
    }

    @Test func thirtyFirstDecodeOfTheDayIsRefusedWithoutCallingGoogle() async throws {
        let rig = try await Rig()
        defer { rig.fake.stop() }
        let now = SystemClock().now()
        try await rig.registerGenuine("t", now: now)
        for _ in 0..<30 { #expect(await rig.verify("t", now: now) == .genuine) }
        #expect(await rig.verify("t", now: now) == .rejected(.budgetExhausted))
        #expect(try await rig.stat("decode_requests") == 30)
    }
}
