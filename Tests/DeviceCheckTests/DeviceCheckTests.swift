import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import HTTPClient
import Synchronization
import TestSupport
import Testing

@testable import DeviceCheck

/// An in-memory daily budget: `limit` queries per device ID, or a failing store.
final class CountingBudget: DeviceDailyBudget {
    private let spent = Mutex<[String: Int]>([:])
    let limit: Int
    let fails: Bool

    init(limit: Int = 30, fails: Bool = false) {
        self.limit = limit
        self.fails = fails
    }

    func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision {
        if fails { throw HTTPError(.connectFailed) }
        return spent.withLock { counts in
            guard counts[deviceID, default: 0] < limit else { return .exhausted }
            counts[deviceID, default: 0] += 1
            return .spent
        }
    }

    func count(_ deviceID: String) -> Int { spent.withLock { $0[deviceID, default: 0] } }
}

@Suite struct DeviceCheckTests {
    static let deviceID = "6f1c2a3b-4d5e-4f60-8a7b-8c9d0e1f2a3b"
    static let key = try! P256PrivateKey()
    static let now = Date(timeIntervalSince1970: 1_764_500_000)
    static let deviceToken = Bytes.base64(Array(repeating: UInt8(7), count: 600))

    static func client(
        _ transport: some HTTPTransport,
        key: P256PrivateKey = key,
        endpoint: String = "http://127.0.0.1:9",
        budget: any DeviceDailyBudget = CountingBudget()
    )
        -> DeviceCheckClient
    {
        DeviceCheckClient(
            configuration: DeviceCheckConfiguration(teamID: "TEAMID1234", keyID: "KEYID56789", endpoint: endpoint),
            key: key,
            transport: transport,
            budget: budget,
            random: SecureRandom(),
            logger: Logger(sink: CapturingLogSink())
        )
    }

    @Test func theRequestCarriesAValidES256JWTAndTheToken() async throws {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        #expect(
            await Self.client(transport).validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
                == .genuine
        )
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST" && request.url == "http://127.0.0.1:9/v1/validate_device_token")
        let authorization = try #require(request.headers.first { $0.name == "Authorization" }?.value)
        #expect(authorization.hasPrefix("Bearer "))
        let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[0])))
        let claims = try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[1])))
        #expect(header == .object(["alg": .string("ES256"), "kid": .string("KEYID56789")]))
        #expect(claims == .object(["iss": .string("TEAMID1234"), "iat": .int(1_764_500_000)]))
        let raw = try #require(Bytes.fromBase64URL(parts[2]))
        #expect(raw.count == 64)
        let der = try ECDSASignature(rawRepresentation: raw).derRepresentation
        #expect(Self.key.publicKey.isValidSHA256Signature(der, for: Array("\(parts[0]).\(parts[1])".utf8)))
        let body = try JSONValue.parse(request.body)
        #expect(body["device_token"] == .string(Self.deviceToken))
        #expect(body["timestamp"] == .int(1_764_500_000_000))
        #expect(body["transaction_id"]?.stringValue?.count == 32)
    }

    @Test(arguments: [
        (200, DeviceCheckResult.genuine),
        (400, .rejected(.tokenRejected)),
        (401, .unavailable(.unauthorized)),
        (403, .unavailable(.unauthorized)),
        (429, .unavailable(.serviceUnavailable)),
        (500, .unavailable(.serviceUnavailable)),
        (503, .unavailable(.serviceUnavailable)),
        (404, .rejected(.refused)),
    ])
    func statusMapping(_ status: Int, _ expected: DeviceCheckResult) async {
        let transport = ClosureTransport { _ in HTTPResponse(status: status) }
        #expect(
            await Self.client(transport).validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
                == expected
        )
    }

    @Test func theDailyBudgetIsSpentPerDeviceAndExhaustedWithoutCallingApple() async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        let budget = CountingBudget(limit: 2)
        let client = Self.client(transport, budget: budget)
        for _ in 0..<2 {
            #expect(
                await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now) == .genuine
            )
        }
        #expect(
            await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
                == .rejected(.budgetExhausted)
        )
        #expect(transport.sent.count == 2)
        #expect(budget.count(Self.deviceID) == 2)
        // Another device ID has its own budget; a malformed token costs nothing.
        let other = "00000000-0000-4000-8000-000000000001"
        #expect(await client.validate(deviceToken: Self.deviceToken, deviceID: other, now: Self.now) == .genuine)
        #expect(await client.validate(deviceToken: "x", deviceID: other, now: Self.now) == .rejected(.tokenMalformed))
        #expect(budget.count(other) == 1)
    }

    /// With too little of the invocation left to ask Apple, nothing is spent and Apple is not called.
    @Test(arguments: [0, 50])
    func tooLittleTimeLeftSpendsNoBudget(millisecondsLeft: Int) async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        let budget = CountingBudget(limit: 30)
        let client = Self.client(transport, budget: budget)
        let result = await Deadline.$current.withValue(.after(.milliseconds(millisecondsLeft))) {
            await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
        }
        #expect(result == .unavailable(.serviceUnavailable))
        #expect(budget.count(Self.deviceID) == 0)
        #expect(transport.sent.isEmpty)
        // With time left it is asked, and pays.
        let asked = await Deadline.$current.withValue(.after(.seconds(5))) {
            await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
        }
        #expect(asked == .genuine)
        #expect(budget.count(Self.deviceID) == 1)
    }

    @Test func aFailingBudgetStoreIsUnavailableWithoutCallingApple() async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        let client = Self.client(transport, budget: CountingBudget(fails: true))
        #expect(
            await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
                == .unavailable(.budgetStoreFailed)
        )
        #expect(transport.sent.isEmpty)
    }

    @Test func theCallEndsWithinTheInvocationsDeadline() async throws {
        // The 3 s cap is cut to what the invocation has left, or Apple could outlive it (docs/playintegrity.md).
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        let client = Self.client(transport)
        _ = await Deadline.$current.withValue(.after(.milliseconds(800))) {
            await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
        }
        let bounded = try #require(transport.sent.last?.timeout)
        #expect(bounded <= .milliseconds(800) && bounded > .zero)
        // Without an invocation (tools), the configured cap.
        _ = await client.validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
        #expect(transport.sent.last?.timeout == .seconds(3))
    }

    @Test func transportFailureIsUnavailable() async {
        let transport = ClosureTransport { _ in throw HTTPError(.timeout) }
        #expect(
            await Self.client(transport).validate(deviceToken: Self.deviceToken, deviceID: Self.deviceID, now: Self.now)
                == .unavailable(.serviceUnavailable)
        )
    }

    @Test(arguments: ["x", "", "not base64!", String(repeating: "A", count: 8196)])
    func malformedTokensAreRejectedWithoutCallingApple(_ token: String) async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        #expect(
            await Self.client(transport).validate(deviceToken: token, deviceID: Self.deviceID, now: Self.now)
                == .rejected(.tokenMalformed)
        )
        #expect(transport.sent.isEmpty)
    }

    // MARK: Switched off abstains, never unavailable

    @Test(arguments: [nil, "x", deviceToken])
    func unconfiguredDeviceCheckAbstainsWhateverTheHeaderSays(_ token: String?) async {
        #expect(await DeviceCheckProvider.off.check(token: token, deviceID: Self.deviceID, now: Self.now) == nil)
        #expect(!DeviceCheckProvider.off.isConfigured)
    }

    @Test func configuredDeviceCheckRejectsXAndAbstainsWithoutAToken() async {
        // What the merge then makes of these answers is GateTests/ProviderMergeTests (the merge lives in Gate).
        let transport = ClosureTransport { _ in HTTPResponse(status: 200) }
        let provider = DeviceCheckProvider(client: Self.client(transport))
        #expect(await provider.check(token: nil, deviceID: Self.deviceID, now: Self.now) == nil)
        let answer = await provider.check(token: "x", deviceID: Self.deviceID, now: Self.now)
        #expect(answer == .rejected(.tokenMalformed))
        #expect(transport.sent.isEmpty)
    }

    @Test func theKeyLoadsFromASecretSource() async throws {
        let source = StaticSecret(bytes: Array(Self.key.pemRepresentation.utf8))
        let loaded = try await DeviceCheckJWT.loadKey(from: source)
        #expect(loaded.publicKey == Self.key.publicKey)
        await #expect(throws: (any Error).self) {
            try await DeviceCheckJWT.loadKey(from: StaticSecret(bytes: Array("garbage".utf8)))
        }
    }
}

struct StaticSecret: SecretSource {
    let bytes: [UInt8]
    func readSecret() async throws(SecretSourceError) -> [UInt8] { bytes }
}

/// The real `CurlTransport` against the DeviceCheck stand-in of `local-harness/fake_google.py`, which
/// verifies our ES256 JWT with the public half of the `.p8`.
@Suite(.serialized) struct DeviceCheckFakeIntegrationTests {
    @Test func validationAgainstTheFake() async throws {
        let key = try P256PrivateKey()
        let fake = try await FakeGoogleProcess.start(
            serviceAccountJSON: nil,
            deviceCheckKeyPEM: key.pemRepresentation,
            extraArguments: ["--devicecheck-key-id", "KEYID56789", "--devicecheck-team-id", "TEAMID1234"]
        )
        defer { fake.stop() }
        let transport = CurlTransport()
        let now = SystemClock().now()
        let client = DeviceCheckTests.client(transport, key: key, endpoint: fake.baseURL)
        let token = DeviceCheckTests.deviceToken
        try await fake.control("/control/devicecheck", .object(["token": .string(token)]), transport: transport)
        #expect(await client.validate(deviceToken: token, deviceID: DeviceCheckTests.deviceID, now: now) == .genuine)
        #expect(
            await client.validate(deviceToken: Bytes.base64([1, 2, 3]), deviceID: DeviceCheckTests.deviceID, now: now)
                == .rejected(.tokenRejected)
        )
        // A JWT signed with a key Apple does not know: our side is at fault, unavailable.
        let stranger = DeviceCheckTests.client(transport, key: try P256PrivateKey(), endpoint: fake.baseURL)
        #expect(
            await stranger.validate(deviceToken: token, deviceID: DeviceCheckTests.deviceID, now: now)
                == .unavailable(.unauthorized)
        )
        try await fake.control("/control/devicecheck", .object(["status": .int(503)]), transport: transport)
        #expect(
            await client.validate(deviceToken: token, deviceID: DeviceCheckTests.deviceID, now: now)
                == .unavailable(.serviceUnavailable)
        )
        #expect(try await fake.stats(transport: transport)["devicecheck_requests"]?.intValue == 4)
    }
}
