import AttestCore
import CivilTime
import Crypto
import FoundationEssentials
import Glibc
import HTTPClient
import TestSupport
import Testing

@testable import DeviceCheck

/// `query_two_bits` / `update_two_bits` against a scripted transport.
@Suite struct DeviceCheckBitsTests {
    static let now = DeviceCheckTests.now  // 2025-11-30 UTC
    static let token = DeviceCheckTests.deviceToken

    static func client(_ transport: some HTTPTransport, timeout: Duration = .seconds(3)) -> DeviceCheckBitsClient {
        DeviceCheckBitsClient(
            configuration: DeviceCheckConfiguration(
                teamID: "TEAMID1234",
                keyID: "KEYID56789",
                endpoint: "http://127.0.0.1:9/",
                timeout: timeout
            ),
            key: DeviceCheckTests.key,
            transport: transport,
            random: SecureRandom(),
            logger: Logger(sink: CapturingLogSink())
        )
    }

    static func answering(_ status: Int, _ body: String = "") -> ClosureTransport {
        ClosureTransport { _ in HTTPResponse(status: status, body: Array(body.utf8)) }
    }

    static func query(
        _ transport: ClosureTransport,
        deadline: Deadline = .after(.seconds(10))
    ) async throws(TwoBitsError)
        -> TwoBitsState
    {
        try await client(transport).query(deviceToken: token, now: now, deadline: deadline)
    }

    static func queryError(
        _ transport: ClosureTransport,
        deadline: Deadline = .after(.seconds(10))
    ) async -> TwoBitsError? {
        do {
            _ = try await query(transport, deadline: deadline)
            return nil
        } catch {
            return error
        }
    }

    // MARK: The requests

    @Test func theQueryCarriesTheJWTTokenTransactionAndTimestamp() async throws {
        let transport = Self.answering(200, #"{"bit0":true,"bit1":false,"last_update_time":"2025-09"}"#)
        let state = try await Self.query(transport)
        #expect(state == .bits(DeviceBits(bit0: true, bit1: false, lastUpdate: BitsMonth(year: 2025, month: 9)!)))
        let request = try #require(transport.sent.first)
        #expect(request.method == "POST" && request.url == "http://127.0.0.1:9/v1/query_two_bits")
        let authorization = try #require(request.headers.first { $0.name == "Authorization" }?.value)
        let parts = authorization.dropFirst("Bearer ".count).split(separator: ".", omittingEmptySubsequences: false)
        try #require(authorization.hasPrefix("Bearer ") && parts.count == 3)
        #expect(
            try JSONValue.parse(try #require(Bytes.fromBase64URL(parts[0])))
                == .object(["alg": .string("ES256"), "kid": .string("KEYID56789")])
        )
        let der = try ECDSASignature(rawRepresentation: try #require(Bytes.fromBase64URL(parts[2]))).derRepresentation
        #expect(DeviceCheckTests.key.publicKey.isValidSHA256Signature(der, for: Array("\(parts[0]).\(parts[1])".utf8)))
        let body = try JSONValue.parse(request.body)
        #expect(body["device_token"] == .string(Self.token))
        #expect(body["timestamp"] == .int(1_764_500_000_000))
        #expect(body["transaction_id"]?.stringValue?.count == 32)
        #expect(body["bit0"] == nil && body["bit1"] == nil)
        #expect(request.timeout == .seconds(3))
    }

    @Test func everyCallHasItsOwnTransactionID() async throws {
        let transport = Self.answering(200, "Failed to find bit state")
        _ = try await Self.query(transport)
        _ = try await Self.query(transport)
        let ids = try transport.sent.map { try JSONValue.parse($0.body)["transaction_id"] }
        #expect(ids.count == 2 && ids[0] != ids[1])
    }

    @Test func theUpdateSendsOnlyTheBitsGiven() async throws {
        let transport = Self.answering(200)
        let client = Self.client(transport)
        try await client.update(deviceToken: Self.token, bit0: true, now: Self.now, deadline: .after(.seconds(5)))
        try await client.update(
            deviceToken: Self.token,
            bit0: false,
            bit1: true,
            now: Self.now,
            deadline: .after(.seconds(5))
        )
        try await client.update(deviceToken: Self.token, now: Self.now, deadline: .after(.seconds(5)))
        #expect(transport.sent.count == 2)  // nothing to set: nothing sent
        let first = try JSONValue.parse(transport.sent[0].body)
        let second = try JSONValue.parse(transport.sent[1].body)
        #expect(transport.sent[0].url == "http://127.0.0.1:9/v1/update_two_bits")
        #expect(first["bit0"] == .bool(true) && first["bit1"] == nil)
        #expect(second["bit0"] == .bool(false) && second["bit1"] == .bool(true))
        #expect(first["device_token"] == .string(Self.token) && first["timestamp"] == .int(1_764_500_000_000))
    }

    // MARK: Apple's answers

    @Test(arguments: ["Failed to find bit state", "Failed to find bit state\n", " Failed to find bit state "])
    func neverSetIsItsOwnAnswer(_ body: String) async throws {
        #expect(try await Self.query(Self.answering(200, body)) == .neverSet)
    }

    @Test(arguments: [
        "", "{}", "Failed to find bit", "failed to find bit state", "[]", "null",
        #"{"bit0":true,"bit1":false}"#,
        #"{"bit0":true,"last_update_time":"2025-09"}"#,
        #"{"bit0":"true","bit1":false,"last_update_time":"2025-09"}"#,
        #"{"bit0":1,"bit1":0,"last_update_time":"2025-09"}"#,
        #"{"bit0":true,"bit1":false,"last_update_time":"2025-13"}"#,
        #"{"bit0":true,"bit1":false,"last_update_time":"2025-9"}"#,
        #"{"bit0":true,"bit1":false,"last_update_time":"2025-09-01"}"#,
        #"{"bit0":true,"bit1":false,"last_update_time":202509}"#,
        #"{"bit0":true,"bit1":false,"last_update_time":"2025-09"} trailing"#,
    ])
    func aMalformedAnswerIsAnError(_ body: String) async {
        let error = await Self.queryError(Self.answering(200, body))
        #expect(error?.reason == .answerMalformed)
        #expect(error?.status == 200)
    }

    @Test func unknownMembersAreIgnored() async throws {
        let body = #"{"bit0":false,"bit1":true,"last_update_time":"2024-12","note":"new"}"#
        #expect(
            try await Self.query(Self.answering(200, body))
                == .bits(DeviceBits(bit0: false, bit1: true, lastUpdate: BitsMonth(year: 2024, month: 12)!))
        )
    }

    @Test(arguments: [
        (400, TwoBitsError.Reason.tokenRejected), (401, .unauthorized), (403, .unauthorized), (429, .rateLimited),
        (408, .serviceUnavailable), (500, .serviceUnavailable), (503, .serviceUnavailable), (404, .refused),
        (302, .refused),
    ])
    func everyOtherStatusIsTyped(_ status: Int, _ reason: TwoBitsError.Reason) async throws {
        let error = await Self.queryError(Self.answering(status, "Missing or incorrectly formatted device token"))
        #expect(error?.reason == reason)
        #expect(error?.status == status)
        // The same for an update.
        do {
            try await Self.client(Self.answering(status)).update(
                deviceToken: Self.token,
                bit0: true,
                now: Self.now,
                deadline: .after(.seconds(5))
            )
            Issue.record("update answered \(status) succeeded")
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test func onlyTokenFaultsBlameTheToken() {
        #expect(TwoBitsError.Reason.tokenMalformed.blamesToken && TwoBitsError.Reason.tokenRejected.blamesToken)
        for reason in [
            TwoBitsError.Reason.unauthorized, .rateLimited, .serviceUnavailable, .deadlineExceeded,
            .answerMalformed, .signingFailed, .refused,
        ] {
            #expect(!reason.blamesToken, "\(reason)")
        }
    }

    @Test func aTransportFailureIsUnavailable() async {
        let transport = ClosureTransport { _ in throw HTTPError(.connectFailed) }
        #expect(await Self.queryError(transport)?.reason == .serviceUnavailable)
    }

    @Test(arguments: ["x", "", "not base64!", String(repeating: "A", count: 8196)])
    func aMalformedTokenIsRefusedWithoutCallingApple(_ token: String) async {
        let transport = Self.answering(200, "Failed to find bit state")
        await #expect(throws: TwoBitsError(.tokenMalformed)) {
            _ = try await Self.client(transport).query(deviceToken: token, now: Self.now, deadline: .after(.seconds(5)))
        }
        #expect(transport.sent.isEmpty)
    }

    // MARK: The deadline

    @Test func theAttemptTimeoutIsCappedByTheDeadline() async throws {
        let transport = Self.answering(200, "Failed to find bit state")
        _ = try await Self.query(transport, deadline: .after(.seconds(1)))
        let timeout = try #require(transport.sent.first?.timeout)
        #expect(timeout <= .seconds(1) && timeout > .milliseconds(500))
    }

    @Test func tooLittleTimeLeftCallsNobody() async {
        let transport = Self.answering(200, "Failed to find bit state")
        #expect(await Self.queryError(transport, deadline: .after(.milliseconds(50)))?.reason == .deadlineExceeded)
        #expect(await Self.queryError(transport, deadline: .after(.seconds(-1)))?.reason == .deadlineExceeded)
        #expect(transport.sent.isEmpty)
    }

    @Test func aTimeoutAtTheDeadlineIsTheDeadline() async {
        let transport = ClosureTransport { request in
            // The transport gives up at the timeout it was given (under 200 ms): the deadline has passed by then.
            #expect(request.timeout.map { $0 <= .milliseconds(200) } == true)
            usleep(250_000)
            throw HTTPError(.timeout)
        }
        #expect(await Self.queryError(transport, deadline: .after(.milliseconds(200)))?.reason == .deadlineExceeded)
    }
}

/// `DeviceMarkPolicy`: bits, their month, now and `DEVICE_MARK_MONTHS` → first or repeat.
@Suite struct DeviceMarkPolicyTests {
    /// Noon UTC on `year-month-day`.
    static func date(_ year: Int, _ month: Int, _ day: Int) -> Date {
        let days = CivilDate(year: year, month: month, day: day).daysSinceEpoch
        return Date(timeIntervalSince1970: Double(days) * 86_400 + 43_200)
    }

    static func bits(_ bit0: Bool, _ bit1: Bool, _ year: Int, _ month: Int) -> TwoBitsState {
        .bits(DeviceBits(bit0: bit0, bit1: bit1, lastUpdate: BitsMonth(year: year, month: month)!))
    }

    @Test func noMarkIsFirst() {
        let now = Self.date(2026, 12, 1)
        #expect(DeviceMarkPolicy.mark(.neverSet, now: now, markMonths: 3) == .first)
        // Bits written back to false (a cleared mark) are no mark, however recent.
        #expect(DeviceMarkPolicy.mark(Self.bits(false, false, 2026, 12), now: now, markMonths: 3) == .first)
    }

    @Test func eitherBitIsAMark() {
        let now = Self.date(2026, 12, 1)
        #expect(DeviceMarkPolicy.mark(Self.bits(true, false, 2026, 12), now: now, markMonths: 3) == .repeat)
        #expect(DeviceMarkPolicy.mark(Self.bits(false, true, 2026, 12), now: now, markMonths: 3) == .repeat)
        #expect(DeviceMarkPolicy.mark(Self.bits(true, true, 2026, 11), now: now, markMonths: 3) == .repeat)
    }

    /// Set in 2026-09, three months: holds through December, cleared from the first of January.
    @Test(arguments: [
        (2026, 9, 1, DeviceMark.repeat), (2026, 9, 30, .repeat), (2026, 10, 15, .repeat), (2026, 12, 1, .repeat),
        (2026, 12, 31, .repeat), (2027, 1, 1, .first), (2027, 6, 1, .first), (2030, 1, 1, .first),
    ])
    func aMarkOlderThanTheMonthsCountsAsCleared(_ year: Int, _ month: Int, _ day: Int, _ expected: DeviceMark) {
        let mark = DeviceMarkPolicy.mark(
            Self.bits(true, false, 2026, 9),
            now: Self.date(year, month, day),
            markMonths: 3
        )
        #expect(mark == expected, "\(year)-\(month)-\(day)")
    }

    @Test func theMonthsCrossYearBoundaries() {
        // November 2026 + 2 months: holds in January 2027, cleared in February.
        let mark = Self.bits(true, false, 2026, 11)
        #expect(DeviceMarkPolicy.mark(mark, now: Self.date(2027, 1, 31), markMonths: 2) == .repeat)
        #expect(DeviceMarkPolicy.mark(mark, now: Self.date(2027, 2, 1), markMonths: 2) == .first)
        // Twelve months: a mark from December 2025 holds through December 2026.
        let old = Self.bits(false, true, 2025, 12)
        #expect(DeviceMarkPolicy.mark(old, now: Self.date(2026, 12, 31), markMonths: 12) == .repeat)
        #expect(DeviceMarkPolicy.mark(old, now: Self.date(2027, 1, 1), markMonths: 12) == .first)
    }

    @Test func theMonthIsUTCs() {
        // 23:30 UTC on 31 December is still December, 00:30 UTC on 1 January is January.
        let mark = Self.bits(true, false, 2026, 9)
        let lastMinute = Date(timeIntervalSince1970: Self.date(2026, 12, 31).timeIntervalSince1970 + 11.5 * 3600)
        #expect(DeviceMarkPolicy.mark(mark, now: lastMinute, markMonths: 3) == .repeat)
        #expect(DeviceMarkPolicy.mark(mark, now: lastMinute + 3600, markMonths: 3) == .first)
    }

    @Test func zeroMonthsClearsAMarkOnlyInALaterMonth() {
        let mark = Self.bits(true, false, 2026, 12)
        #expect(DeviceMarkPolicy.mark(mark, now: Self.date(2026, 12, 31), markMonths: 0) == .repeat)
        #expect(DeviceMarkPolicy.mark(mark, now: Self.date(2027, 1, 1), markMonths: 0) == .first)
        #expect(DeviceMarkPolicy.mark(mark, now: Self.date(2027, 1, 1), markMonths: -4) == .first)
    }

    @Test func aMarkFromTheFutureIsInForce() {
        #expect(
            DeviceMarkPolicy.mark(Self.bits(true, false, 2027, 3), now: Self.date(2026, 12, 1), markMonths: 3)
                == .repeat
        )
    }

    @Test(arguments: [("2026-09", 2026, 9), ("0001-01", 1, 1), ("9999-12", 9999, 12)])
    func monthsParse(_ text: String, _ year: Int, _ month: Int) {
        #expect(BitsMonth(apple: text) == BitsMonth(year: year, month: month))
        #expect(BitsMonth(apple: text)?.description == text)
    }

    @Test(arguments: [
        "2026-00", "2026-13", "0000-01", "2026/09", "26-09", "2026-9", "2026-009", "", "２０２６-09", "2026-0a",
    ])
    func otherTextIsNoMonth(_ text: String) {
        #expect(BitsMonth(apple: text) == nil)
    }
}

/// The device ID's daily budget pays for every two-bits call made with a charge.
@Suite struct DeviceCheckBitsBudgetTests {
    static let deviceID = DeviceCheckTests.deviceID
    static let answer = #"{"bit0":false,"bit1":false,"last_update_time":"2025-09"}"#

    static func error(_ body: () async throws -> Void) async -> TwoBitsError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? TwoBitsError
        }
    }

    @Test func eachQueryAndUpdateSpendsOneUnitOfTheDevicesBudget() async throws {
        let transport = DeviceCheckBitsTests.answering(200, Self.answer)
        let budget = CountingBudget(limit: 2)
        let client = DeviceCheckBitsTests.client(transport)
        let charge = DeviceCheckCharge(budget: budget, deviceID: Self.deviceID)
        let now = DeviceCheckBitsTests.now
        let token = DeviceCheckBitsTests.token
        _ = try await client.query(deviceToken: token, now: now, deadline: .after(.seconds(5)), charge: charge)
        try await client.update(deviceToken: token, bit0: true, now: now, deadline: .after(.seconds(5)), charge: charge)
        #expect(budget.count(Self.deviceID) == 2)
        // Spent: Apple is not called.
        let refused = await Self.error {
            _ = try await client.query(deviceToken: token, now: now, deadline: .after(.seconds(5)), charge: charge)
        }
        #expect(refused == TwoBitsError(.budgetExhausted))
        #expect(refused?.reason.blamesToken == false)
        #expect(transport.sent.count == 2)
        // Another device ID has its own budget.
        let other = DeviceCheckCharge(budget: budget, deviceID: "another-device")
        _ = try await client.query(deviceToken: token, now: now, deadline: .after(.seconds(5)), charge: other)
        #expect(transport.sent.count == 3)
    }

    @Test func aFailingBudgetStoreCallsNoOne() async {
        let transport = DeviceCheckBitsTests.answering(200, Self.answer)
        let charge = DeviceCheckCharge(budget: CountingBudget(fails: true), deviceID: Self.deviceID)
        let failure = await Self.error {
            _ = try await DeviceCheckBitsTests.client(transport).query(
                deviceToken: DeviceCheckBitsTests.token,
                now: DeviceCheckBitsTests.now,
                deadline: .after(.seconds(5)),
                charge: charge
            )
        }
        #expect(failure == TwoBitsError(.budgetStoreFailed))
        #expect(transport.sent.isEmpty)
    }

    @Test func nothingIsSpentForAMalformedTokenOrAPassedDeadline() async {
        let transport = DeviceCheckBitsTests.answering(200, Self.answer)
        let budget = CountingBudget()
        let charge = DeviceCheckCharge(budget: budget, deviceID: Self.deviceID)
        let client = DeviceCheckBitsTests.client(transport)
        let malformed = await Self.error {
            _ = try await client.query(
                deviceToken: "not base64!",
                now: DeviceCheckBitsTests.now,
                deadline: .after(.seconds(5)),
                charge: charge
            )
        }
        #expect(malformed == TwoBitsError(.tokenMalformed))
        let late = await Self.error {
            try await client.update(
                deviceToken: DeviceCheckBitsTests.token,
                bit1: true,
                now: DeviceCheckBitsTests.now,
                deadline: .after(.milliseconds(20)),
                charge: charge
            )
        }
        #expect(late == TwoBitsError(.deadlineExceeded))
        #expect(budget.count(Self.deviceID) == 0)
        #expect(transport.sent.isEmpty)
    }
}
