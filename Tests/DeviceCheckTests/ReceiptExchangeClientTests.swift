import AttestCore
import Crypto
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing

@testable import DeviceCheck

/// `POST /v1/attestationData` against a scripted transport.
@Suite struct ReceiptExchangeClientTests {
    static let receipt: [UInt8] = Array(0..<200).map { UInt8($0) }
    static let refreshed: [UInt8] = Array(repeating: 0x42, count: 300)

    static func client(_ transport: some HTTPTransport) -> ReceiptExchangeClient {
        ReceiptExchangeClient(
            configuration: ReceiptExchangeConfiguration(
                teamID: "TEAMID1234",
                keyID: "KEYID56789",
                endpoint: ReceiptExchangeConfiguration.developmentEndpoint + "/"
            ),
            key: DeviceCheckTests.key,
            transport: transport,
            logger: Logger(sink: CapturingLogSink())
        )
    }

    static func exchange(
        _ transport: ClosureTransport,
        deadline: Deadline = .after(.seconds(10))
    )
        async throws(ReceiptExchangeError) -> ReceiptExchangeAnswer
    {
        try await client(transport).exchange(receipt: receipt, now: DeviceCheckTests.now, deadline: deadline)
    }

    static func error(
        _ transport: ClosureTransport,
        deadline: Deadline = .after(.seconds(10))
    ) async
        -> ReceiptExchangeError?
    {
        do {
            _ = try await exchange(transport, deadline: deadline)
            return nil
        } catch {
            return error
        }
    }

    @Test func theRequestIsTheReceiptInBase64WithTheBareJWT() async throws {
        let transport = ClosureTransport { _ in
            HTTPResponse(status: 200, body: Array(Bytes.base64(Self.refreshed).utf8))
        }
        #expect(try await Self.exchange(transport) == .unverifiedReceipt(Self.refreshed))
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://data-development.appattest.apple.com/v1/attestationData")
        #expect(String(decoding: request.body, as: UTF8.self) == Bytes.base64(Self.receipt))
        let authorization = try #require(request.headers.first { $0.name == "Authorization" }?.value)
        #expect(!authorization.hasPrefix("Bearer"))
        let parts = authorization.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        #expect(
            try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[1])))
                == .object(["iss": .string("TEAMID1234"), "iat": .int(1_764_500_000)])
        )
        let der = try ECDSASignature(rawRepresentation: try #require(Bytes.fromBase64URL(parts[2]))).derRepresentation
        #expect(DeviceCheckTests.key.publicKey.isValidSHA256Signature(der, for: Array("\(parts[0]).\(parts[1])".utf8)))
        #expect(ReceiptExchangeConfiguration.productionEndpoint == "https://data.appattest.apple.com")
    }

    @Test func aWrappedBase64AnswerIsRead() async throws {
        var text = Array(Bytes.base64(Self.refreshed).utf8)
        text.insert(contentsOf: [0x0D, 0x0A], at: 64)
        text.append(0x0A)
        let wrapped = text
        let transport = ClosureTransport { _ in HTTPResponse(status: 200, body: wrapped) }
        #expect(try await Self.exchange(transport) == .unverifiedReceipt(Self.refreshed))
    }

    @Test(arguments: ["", "not base64!", "{\"receipt\":\"AAAA\"}", "=====", "AAA", "AA=A", "A===", "QUJD\u{0}"])
    func aMalformedAnswerIsAnError(_ body: String) async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 200, body: Array(body.utf8)) }
        #expect(await Self.error(transport)?.reason == .answerMalformed)
    }

    @Test func notModifiedKeepsTheReceipt() async throws {
        let transport = ClosureTransport { _ in HTTPResponse(status: 304) }
        #expect(try await Self.exchange(transport) == .notModified)
    }

    @Test(arguments: [
        (400, ReceiptExchangeError.Reason.receiptRejected), (401, .unauthorized), (403, .unauthorized),
        (404, .notFound), (429, .rateLimited), (408, .serviceUnavailable), (500, .serviceUnavailable),
        (503, .serviceUnavailable), (302, .refused), (418, .refused),
    ])
    func everyOtherStatusIsTyped(_ status: Int, _ reason: ReceiptExchangeError.Reason) async {
        let transport = ClosureTransport { _ in HTTPResponse(status: status, body: Array(Bytes.base64([1]).utf8)) }
        let error = await Self.error(transport)
        #expect(error?.reason == reason)
        #expect(error?.status == status)
    }

    @Test func aTransportFailureIsUnavailable() async {
        let transport = ClosureTransport { _ in throw HTTPError(.connectFailed) }
        #expect(await Self.error(transport)?.reason == .serviceUnavailable)
    }

    @Test func anEmptyOrHugeReceiptIsNotSent() async {
        let transport = ClosureTransport { _ in HTTPResponse(status: 304) }
        for receipt in [[UInt8](), [UInt8](repeating: 1, count: ReceiptExchangeClient.maxReceiptBytes + 1)] {
            await #expect(throws: ReceiptExchangeError(.receiptInvalid)) {
                _ = try await Self.client(transport).exchange(
                    receipt: receipt,
                    now: DeviceCheckTests.now,
                    deadline: .after(.seconds(5))
                )
            }
        }
        #expect(transport.sent.isEmpty)
    }

    @Test func theDeadlineBoundsTheCall() async throws {
        let transport = ClosureTransport { _ in HTTPResponse(status: 304) }
        #expect(await Self.error(transport, deadline: .after(.milliseconds(20)))?.reason == .deadlineExceeded)
        #expect(transport.sent.isEmpty)
        _ = try await Self.exchange(transport, deadline: .after(.seconds(1)))
        let timeout = try #require(transport.sent.first?.timeout)
        #expect(timeout <= .seconds(1) && timeout > .milliseconds(500))
    }

    /// Each exchange is paid from the device ID's daily DeviceCheck budget, only once the call can be made.
    @Test func theDeviceCheckBudgetPaysForEachExchange() async throws {
        let transport = ClosureTransport { _ in HTTPResponse(status: 304) }
        let budget = CountingBudget(limit: 2)
        let client = Self.client(transport)
        func exchange(deadline: Deadline = .after(.seconds(5))) async throws(ReceiptExchangeError) {
            _ = try await client.exchange(
                receipt: Self.receipt,
                charge: DeviceCheckCharge(budget: budget, deviceID: DeviceCheckTests.deviceID),
                now: DeviceCheckTests.now,
                deadline: deadline
            )
        }
        // Too little time: neither the budget nor Apple is touched.
        await #expect(throws: ReceiptExchangeError(.deadlineExceeded)) { try await exchange(deadline: .after(.zero)) }
        #expect(budget.count(DeviceCheckTests.deviceID) == 0)
        try await exchange()
        try await exchange()
        await #expect(throws: ReceiptExchangeError(.budgetExhausted)) { try await exchange() }
        #expect(budget.count(DeviceCheckTests.deviceID) == 2)
        #expect(transport.sent.count == 2)
        await #expect(throws: ReceiptExchangeError(.budgetUnavailable)) {
            _ = try await client.exchange(
                receipt: Self.receipt,
                charge: DeviceCheckCharge(budget: CountingBudget(fails: true), deviceID: DeviceCheckTests.deviceID),
                now: DeviceCheckTests.now,
                deadline: .after(.seconds(5))
            )
        }
        #expect(transport.sent.count == 2)
    }
}
