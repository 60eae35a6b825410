import AppAttest
import AttestCore
import CivilTime
import Crypto
import CryptoTestSupport
import DeviceCheck
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing

/// The iOS device-tier building blocks composed as the gate will compose them, against
/// `local-harness/fake_apple.py` over real HTTP: a simulated iPhone's key is registered, its ATTEST
/// receipt exchanged for a RECEIPT with a risk metric and verified; the two bits of one physical
/// device turn into `first` / `repeat` across its device tokens. (Not wired into the gate yet.)
@Suite(.serialized) struct DeviceSignalsFakeAppleTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00 UTC
    static let teamID = "ABCDE12345"
    static let keyID = "KEYID56789"

    static func start() throws -> (FakeAppleProcess, P256PrivateKey) {
        let key = try P256PrivateKey()
        return (try FakeAppleProcess(keyPEM: key.pemRepresentation, keyID: keyID, teamID: teamID), key)
    }

    @Test func anAttestReceiptIsExchangedForAVerifiedRiskMetric() async throws {
        let (fake, p8) = try Self.start()
        defer { fake.stop() }
        let transport = CurlTransport()
        let authority = try SimulatedAppleCA(now: Self.now)
        let device = SimulatedDevice(
            teamId: Self.teamID,
            bundleId: "com.example.gate",
            environment: .production,
            authority: authority
        )
        let verifier = AppAttestVerifier(
            teamId: Self.teamID,
            bundleIds: ["com.example.gate"],
            environment: .production,
            trust: .synthetic(root: authority.root)
        )
        // Registration: Apple's steps and the ATTEST receipt.
        let appKey = try SimulatedAppAttestKey()
        let hash = Digest.sha256(Array("challenge".utf8))
        let attestation = try device.attest(appKey, clientDataHash: hash, now: Self.now, options: .genuine)
        let registration = try verifier.verifyRegistration(
            keyId: appKey.keyId,
            attestation: attestation,
            clientDataHash: hash,
            now: Self.now
        )
        // What Apple will answer: a RECEIPT with a risk metric of 12 for this key; then 304 before not-before.
        var options = SimulatedDevice.RefreshedReceiptOptions()
        options.riskMetric = "12"
        let refreshed = try device.refreshedReceipt(
            credentialCertificateDER: registration.key.credentialCertificateDER,
            now: Self.now,
            options: options
        )
        try await fake.control(
            "/control/receipt",
            .object([
                "receipt": .string(Bytes.base64(registration.receiptBytes)),
                "answer": .string(Bytes.base64(refreshed)),
            ]),
            transport: transport
        )
        try await fake.control(
            "/control/receipt",
            .object(["receipt": .string(Bytes.base64(refreshed)), "status": .int(304)]),
            transport: transport
        )
        let client = ReceiptExchangeClient(
            configuration: ReceiptExchangeConfiguration(teamID: Self.teamID, keyID: Self.keyID, endpoint: fake.baseURL),
            key: p8,
            transport: transport,
            logger: Logger(sink: CapturingLogSink())
        )
        let answer = try await client.exchange(
            receipt: registration.receiptBytes,
            now: Self.now,
            deadline: .after(.seconds(5))
        )
        guard case .unverifiedReceipt(let bytes) = answer else {
            Issue.record("expected a receipt, got \(answer)")
            return
        }
        let verified = try verifier.verifyRefreshedReceipt(
            bytes,
            publicKey: registration.key.publicKey,
            credentialCertificateDER: registration.key.credentialCertificateDER,
            now: Self.now.addingTimeInterval(60)
        )
        #expect(verified.riskMetric == 12)
        #expect(verified.notBefore == Self.now.addingTimeInterval(86_400))
        // Asked again before not-before: keep what we have.
        #expect(try await client.exchange(receipt: bytes, now: Self.now, deadline: .after(.seconds(5))) == .notModified)
        // A receipt for another key, served for ours, is refused by the verification.
        let otherKey = try SimulatedAppAttestKey()
        let other = try verifier.verifyRegistration(
            keyId: otherKey.keyId,
            attestation: try device.attest(otherKey, clientDataHash: hash, now: Self.now, options: .genuine),
            clientDataHash: hash,
            now: Self.now
        )
        let foreign = try device.refreshedReceipt(
            credentialCertificateDER: other.key.credentialCertificateDER,
            now: Self.now
        )
        #expect(throws: AppAttestError(.receiptKeyMismatch)) {
            try verifier.verifyRefreshedReceipt(foreign, publicKey: registration.key.publicKey, now: Self.now)
        }
        #expect(try await fake.stats(transport: transport)["exchange_requests"]?.intValue == 2)
    }

    /// The fake as Apple: it signs a RECEIPT for the key with its physical device's metric (how many keys that
    /// device attested, or a metric set for it), that our verifier accepts; before its not-before it is 304.
    @Test func theFakeIssuesReceiptsWithAMetricPerPhysicalDevice() async throws {
        let (fake, p8) = try Self.start()
        defer { fake.stop() }
        let transport = CurlTransport()
        let now = Date(timeIntervalSince1970: Double(Int(Date().timeIntervalSince1970)))
        let authority = try SimulatedAppleCA(now: now)
        let device = SimulatedDevice(
            teamId: Self.teamID,
            bundleId: "com.example.gate",
            environment: .development,
            authority: authority
        )
        let verifier = AppAttestVerifier(
            teamId: Self.teamID,
            bundleIds: ["com.example.gate"],
            environment: .development,
            trust: .synthetic(root: authority.root)
        )
        let signing = authority.receiptSigning
        try await fake.setReceiptSigner(
            keyPEM: signing.keyPEM,
            certificates: signing.certificates,
            transport: transport
        )
        let client = ReceiptExchangeClient(
            configuration: ReceiptExchangeConfiguration(teamID: Self.teamID, keyID: Self.keyID, endpoint: fake.baseURL),
            key: p8,
            transport: transport,
            logger: Logger(sink: CapturingLogSink())
        )
        func register() throws -> VerifiedRegistration {
            let key = try SimulatedAppAttestKey()
            let hash = Digest.sha256(Array("challenge".utf8))
            return try verifier.verifyRegistration(
                keyId: key.keyId,
                attestation: try device.attest(key, clientDataHash: hash, now: now),
                clientDataHash: hash,
                now: now
            )
        }
        func metric(_ registration: VerifiedRegistration) async throws -> (Int, [UInt8]) {
            let answer = try await client.exchange(
                receipt: registration.receiptBytes,
                now: now,
                deadline: .after(.seconds(5))
            )
            guard case .unverifiedReceipt(let bytes) = answer else {
                Issue.record("expected a receipt, got \(answer)")
                return (-1, [])
            }
            let verified = try verifier.verifyRefreshedReceipt(bytes, publicKey: registration.key.publicKey, now: now)
            #expect(verified.notBefore > now.addingTimeInterval(86_000))
            return (verified.riskMetric, bytes)
        }
        // A key of no known device: 1. Three keys of one iPhone: 3; a metric set for it wins.
        #expect(try await metric(try register()).0 == 1)
        let keys = try (0..<3).map { _ in try register() }
        for key in keys { try await fake.registerKey(key.key.keyId, device: "iphone-7", transport: transport) }
        #expect(try await metric(keys[0]).0 == 3)
        try await fake.setRiskMetric(12, device: "iphone-7", transport: transport)
        let (twelve, refreshed) = try await metric(keys[1])
        #expect(twelve == 12)
        // The RECEIPT exchanged again before its not-before: 304.
        #expect(try await client.exchange(receipt: refreshed, now: now, deadline: .after(.seconds(5))) == .notModified)
        // A receipt our check refuses (signed over its content) is still Apple's: the fake exchanges it.
        let key = try SimulatedAppAttestKey()
        let hash = Digest.sha256(Array("challenge".utf8))
        let odd = try verifier.verifyRegistration(
            keyId: key.keyId,
            attestation: try device.attest(
                key,
                clientDataHash: hash,
                now: now,
                options: .genuine.with { $0.receipt.signatureOverContent = true }
            ),
            clientDataHash: hash,
            now: now
        )
        #expect(!odd.receiptVerified)
        #expect(try await metric(odd).0 == 1)
    }

    /// One iPhone, three device IDs (three DeviceCheck tokens): the first gets the free tier and marks the
    /// device; the others read the mark; an old mark counts as cleared.
    @Test func onePhysicalDeviceGetsOneFirstTier() async throws {
        let (fake, p8) = try Self.start()
        defer { fake.stop() }
        let transport = CurlTransport()
        let bits = DeviceCheckBitsClient(
            configuration: DeviceCheckConfiguration(teamID: Self.teamID, keyID: Self.keyID, endpoint: fake.baseURL),
            key: p8,
            transport: transport,
            random: SecureRandom(),
            logger: Logger(sink: CapturingLogSink())
        )
        let tokens = (1...3).map { Bytes.base64(Array(repeating: UInt8($0), count: 120)) }
        for token in tokens { try await fake.registerDevice(token: token, device: "iphone-1", transport: transport) }
        try await fake.control("/control/month", .object(["month": .string("2026-12")]), transport: transport)

        var marks: [DeviceMark] = []
        for token in tokens {
            let state = try await bits.query(deviceToken: token, now: Self.now, deadline: .after(.seconds(5)))
            let mark = DeviceMarkPolicy.mark(state, now: Self.now, markMonths: DeviceMarkPolicy.defaultMonths)
            if mark == .first {
                try await bits.update(deviceToken: token, bit0: true, now: Self.now, deadline: .after(.seconds(5)))
            }
            marks.append(mark)
        }
        #expect(marks == [.first, .repeat, .repeat])

        // A second-hand phone: its mark is from January, four whole months before May.
        try await fake.setBits(device: "iphone-1", bit0: true, bit1: false, month: "2026-01", transport: transport)
        let may = Date(timeIntervalSince1970: Double(CivilDate(year: 2026, month: 5, day: 1).daysSinceEpoch) * 86_400)
        let april = Date(
            timeIntervalSince1970: Double(CivilDate(year: 2026, month: 4, day: 30).daysSinceEpoch) * 86_400
        )
        let state = try await bits.query(deviceToken: tokens[0], now: may, deadline: .after(.seconds(5)))
        #expect(DeviceMarkPolicy.mark(state, now: may, markMonths: 3) == .first)
        #expect(DeviceMarkPolicy.mark(state, now: april, markMonths: 3) == .repeat)
    }
}
