import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing

@testable import DeviceCheck

/// The real `CurlTransport` against `local-harness/fake_apple.py`, which verifies our ES256 JWT with the
/// public half of the `.p8` and keeps two bits per physical device (many device tokens name one device).
@Suite(.serialized) struct FakeAppleIntegrationTests {
    static let keyID = "KEYID56789"
    static let teamID = "TEAMID1234"

    static func bitsClient(key: P256PrivateKey, endpoint: String) -> DeviceCheckBitsClient {
        DeviceCheckBitsClient(
            configuration: DeviceCheckConfiguration(teamID: teamID, keyID: keyID, endpoint: endpoint),
            key: key,
            transport: CurlTransport(),
            random: SecureRandom(),
            logger: Logger(sink: CapturingLogSink())
        )
    }

    static func exchangeClient(key: P256PrivateKey, endpoint: String) -> ReceiptExchangeClient {
        ReceiptExchangeClient(
            configuration: ReceiptExchangeConfiguration(teamID: teamID, keyID: keyID, endpoint: endpoint),
            key: key,
            transport: CurlTransport(),
            logger: Logger(sink: CapturingLogSink())
        )
    }

    static func token(_ seed: UInt8) -> String { Bytes.base64(Array(repeating: seed, count: 200)) }

    @Test func oneDeviceManyTokensOneMark() async throws {
        let key = try P256PrivateKey()
        let fake = try FakeAppleProcess(keyPEM: key.pemRepresentation, keyID: Self.keyID, teamID: Self.teamID)
        defer { fake.stop() }
        let transport = CurlTransport()
        let client = Self.bitsClient(key: key, endpoint: fake.baseURL)
        let now = SystemClock().now()
        // Two tokens of one iPhone (a reinstall mints a new token), one of another.
        try await fake.registerDevice(token: Self.token(1), device: "iphone-a", transport: transport)
        try await fake.registerDevice(token: Self.token(2), device: "iphone-a", transport: transport)
        try await fake.registerDevice(token: Self.token(3), device: "iphone-b", transport: transport)
        try await fake.control("/control/month", .object(["month": .string("2026-12")]), transport: transport)

        #expect(
            try await client.query(deviceToken: Self.token(1), now: now, deadline: .after(.seconds(5))) == .neverSet
        )
        try await client.update(deviceToken: Self.token(1), bit0: true, now: now, deadline: .after(.seconds(5)))
        let december = try #require(BitsMonth(year: 2026, month: 12))
        let marked = TwoBitsState.bits(DeviceBits(bit0: true, bit1: false, lastUpdate: december))
        // The other token of the same device sees the mark; the other device does not.
        #expect(try await client.query(deviceToken: Self.token(2), now: now, deadline: .after(.seconds(5))) == marked)
        #expect(
            try await client.query(deviceToken: Self.token(3), now: now, deadline: .after(.seconds(5))) == .neverSet
        )
        // Setting bit 1 keeps bit 0.
        try await client.update(deviceToken: Self.token(2), bit1: true, now: now, deadline: .after(.seconds(5)))
        #expect(
            try await fake.bits(device: "iphone-a", transport: transport)
                == .object(["bit0": .bool(true), "bit1": .bool(true), "last_update_time": .string("2026-12")])
        )
        let stats = try await fake.stats(transport: transport)
        #expect(stats["query_requests"]?.intValue == 3 && stats["update_requests"]?.intValue == 2)
        #expect(stats["transaction_ids"]?.intValue == 5)
    }

    @Test func apple400sAndOurOwn401sAreTyped() async throws {
        let key = try P256PrivateKey()
        let fake = try FakeAppleProcess(keyPEM: key.pemRepresentation, keyID: Self.keyID, teamID: Self.teamID)
        defer { fake.stop() }
        let transport = CurlTransport()
        let now = SystemClock().now()
        try await fake.registerDevice(token: Self.token(1), device: "iphone-a", transport: transport)
        let client = Self.bitsClient(key: key, endpoint: fake.baseURL)
        // A token of no device Apple knows.
        await #expect(throws: TwoBitsError(.tokenRejected)) {
            _ = try await client.query(deviceToken: Self.token(9), now: now, deadline: .after(.seconds(5)))
        }
        // A JWT signed by a key Apple does not know.
        let stranger = Self.bitsClient(key: try P256PrivateKey(), endpoint: fake.baseURL)
        await #expect(throws: TwoBitsError(.unauthorized)) {
            _ = try await stranger.query(deviceToken: Self.token(1), now: now, deadline: .after(.seconds(5)))
        }
        try await fake.control("/control/status", .object(["devicecheck": .int(429)]), transport: transport)
        await #expect(throws: TwoBitsError(.rateLimited)) {
            _ = try await client.query(deviceToken: Self.token(1), now: now, deadline: .after(.seconds(5)))
        }
        try await fake.control("/control/status", .object(["devicecheck": .int(503)]), transport: transport)
        await #expect(throws: TwoBitsError(.serviceUnavailable)) {
            try await client.update(deviceToken: Self.token(1), bit0: true, now: now, deadline: .after(.seconds(5)))
        }
        let refusals = try await fake.stats(transport: transport)["refusals"]
        #expect(refusals?["device_token"]?.intValue == 1 && refusals?["jwt"]?.intValue == 1)
    }

    /// Apple hanging: the call ends at the caller's deadline, not at the configured timeout.
    @Test func aHangingAppleEndsAtTheDeadline() async throws {
        let key = try P256PrivateKey()
        let fake = try FakeAppleProcess(keyPEM: key.pemRepresentation)
        defer { fake.stop() }
        let transport = CurlTransport()
        try await fake.registerDevice(token: Self.token(1), device: "iphone-a", transport: transport)
        try await fake.control("/control/status", .object(["hang": .int(10)]), transport: transport)
        let client = Self.bitsClient(key: key, endpoint: fake.baseURL)
        let started = ContinuousClock.now
        await #expect(throws: TwoBitsError(.deadlineExceeded)) {
            _ = try await client.query(
                deviceToken: Self.token(1),
                now: SystemClock().now(),
                deadline: .after(.milliseconds(500))
            )
        }
        // Far below the 10 s hang (a loaded host can be slow to answer, never that slow).
        #expect(ContinuousClock.now - started < .seconds(6))
    }

    @Test func theReceiptExchangeAnswersWhatAppleWould() async throws {
        let key = try P256PrivateKey()
        let fake = try FakeAppleProcess(keyPEM: key.pemRepresentation, keyID: Self.keyID, teamID: Self.teamID)
        defer { fake.stop() }
        let transport = CurlTransport()
        let now = SystemClock().now()
        let client = Self.exchangeClient(key: key, endpoint: fake.baseURL)
        let attest: [UInt8] = Array(repeating: 0x30, count: 3000) + [1]
        let refreshed: [UInt8] = Array(repeating: 0x31, count: 3500) + [2]
        let early: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x05]
        let gone: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x06]
        try await fake.control(
            "/control/receipt",
            .object(["receipt": .string(Bytes.base64(attest)), "answer": .string(Bytes.base64(refreshed))]),
            transport: transport
        )
        try await fake.control(
            "/control/receipt",
            .object(["receipt": .string(Bytes.base64(early)), "status": .int(304)]),
            transport: transport
        )
        try await fake.control(
            "/control/receipt",
            .object(["receipt": .string(Bytes.base64(gone)), "status": .int(404)]),
            transport: transport
        )
        #expect(
            try await client.exchange(receipt: attest, now: now, deadline: .after(.seconds(5)))
                == .unverifiedReceipt(refreshed)
        )
        #expect(try await client.exchange(receipt: early, now: now, deadline: .after(.seconds(5))) == .notModified)
        await #expect(throws: ReceiptExchangeError(.notFound)) {
            _ = try await client.exchange(receipt: gone, now: now, deadline: .after(.seconds(5)))
        }
        await #expect(throws: ReceiptExchangeError(.receiptRejected)) {
            _ = try await client.exchange(receipt: [0x30, 0x00], now: now, deadline: .after(.seconds(5)))
        }
        let stranger = Self.exchangeClient(key: try P256PrivateKey(), endpoint: fake.baseURL)
        await #expect(throws: ReceiptExchangeError(.unauthorized)) {
            _ = try await stranger.exchange(receipt: attest, now: now, deadline: .after(.seconds(5)))
        }
        try await fake.control("/control/status", .object(["exchange": .int(429)]), transport: transport)
        await #expect(throws: ReceiptExchangeError(.rateLimited)) {
            _ = try await client.exchange(receipt: attest, now: now, deadline: .after(.seconds(5)))
        }
        #expect(try await fake.stats(transport: transport)["exchange_requests"]?.intValue == 6)
    }
}
