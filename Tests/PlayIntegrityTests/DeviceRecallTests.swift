import AttestCore
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing

@testable import PlayIntegrity

/// `deviceIntegrity.deviceRecall` in a decoded verdict (docs/playintegrity.md "Device recall").
@Suite struct DeviceRecallParsingTests {
    static let path = ["tokenPayloadExternal", "deviceIntegrity", "deviceRecall"]

    static func payload(recall value: JSONValue?) throws -> IntegrityPayload {
        try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_pass_minimal.json").setting(path, to: value)
        )
    }

    @Test func theForwardCompatibleFixtureCarriesASetFirstBitAndItsMonth() throws {
        let payload = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_forward_compat_unknown_fields.json")
        )
        #expect(
            payload.deviceRecall
                == .values(DeviceRecall(bitFirst: true, writeDates: DeviceRecall.WriteDates(first: 202_605)))
        )
    }

    @Test func anAbsentOrNullFieldIsNoRecallValues() throws {
        #expect(try Self.payload(recall: nil).deviceRecall == .absent)
        #expect(try Self.payload(recall: .null).deviceRecall == .absent)
        #expect(IntegrityPayload().deviceRecall == .absent)
        #expect(DeviceRecallReading.absent.recall == nil)
    }

    /// proto3 JSON leaves `false` out: an empty `values` object is three clear bits.
    @Test func missingBitsInsideValuesAreClear() throws {
        let empty = try Self.payload(recall: .object(["values": .object([:])])).deviceRecall
        #expect(empty == .values(DeviceRecall(bitFirst: false)))
        let second = try Self.payload(
            recall: .object([
                "values": .object(["bitSecond": .bool(true), "bitThird": .null]),
                "writeDates": .object(["yyyymmSecond": .int(202_512)]),
            ])
        ).deviceRecall
        #expect(
            second
                == .values(
                    DeviceRecall(bitFirst: false, bitSecond: true, writeDates: DeviceRecall.WriteDates(second: 202_512))
                )
        )
    }

    @Test func allThreeBitsAndDatesAreRead() throws {
        let recall = try Self.payload(
            recall: .object([
                "values": .object(["bitFirst": .bool(true), "bitSecond": .bool(true), "bitThird": .bool(true)]),
                "writeDates": .object([
                    "yyyymmFirst": .int(202_401), "yyyymmSecond": .string("202402"), "yyyymmThird": .int(202_612),
                ]),
            ])
        ).deviceRecall
        #expect(
            recall
                == .values(
                    DeviceRecall(
                        bitFirst: true,
                        bitSecond: true,
                        bitThird: true,
                        writeDates: DeviceRecall.WriteDates(first: 202_401, second: 202_402, third: 202_612)
                    )
                )
        )
    }

    /// A shape we do not know is never read as a clear bit (a clear bit gives a free tier).
    @Test(arguments: [
        JSONValue.object([:]),
        .object(["values": .null]),
        .object(["values": .array([])]),
        .object(["values": .object(["bitFirst": .string("false")])]),
        .object(["values": .object(["bitFirst": .int(0)])]),
        .object(["values": .object(["bitSecond": .string("true")])]),
        .object(["writeDates": .object(["yyyymmFirst": .int(202_401)])]),
        .bool(false),
        .string("bitFirst"),
        .array([]),
    ])
    func anUnknownShapeIsUnrecognized(_ value: JSONValue) throws {
        let payload = try Self.payload(recall: value)
        #expect(payload.deviceRecall == .unrecognized)
        #expect(payload.deviceRecall.recall == nil)
    }

    /// Recall decides a tier, never the verdict: every shape still passes the standard checks.
    @Test func recallNeverRefusesAVerdict() throws {
        for value in [nil, JSONValue.string("junk"), .object(["values": .object(["bitFirst": .bool(true)])])] {
            let payload = try Self.payload(recall: value)
            let result = VerdictPolicies.standard(Fixture.configuration, expectedRequestHash: Fixture.requestHash)
                .evaluate(payload, now: Fixture.now)
            #expect(result == .pass)
        }
    }

    /// Dates are informational: one that is not a `YYYYMM` month is dropped, the bits still read.
    @Test(arguments: [
        JSONValue.int(202_413), .int(202_400), .int(199_912), .int(2024), .int(-202_401), .string("2024-01"),
        .string(""), .string("20240101"), .double(202_401.5), .bool(true), .object([:]),
    ])
    func aDateThatIsNotAMonthIsDropped(_ date: JSONValue) throws {
        let recall = try Self.payload(
            recall: .object([
                "values": .object(["bitFirst": .bool(true)]), "writeDates": .object(["yyyymmFirst": date]),
            ])
        ).deviceRecall
        #expect(recall == .values(DeviceRecall(bitFirst: true)))
    }

    @Test func aWriteDatesValueOfTheWrongTypeIsIgnored() throws {
        let recall = try Self.payload(
            recall: .object(["values": .object(["bitFirst": .bool(true)]), "writeDates": .string("202401")])
        ).deviceRecall
        #expect(recall == .values(DeviceRecall(bitFirst: true)))
    }
}

/// `PlayIntegrityVerifier.check` hands the recall bits of a genuine verdict on, and only of a genuine one.
@Suite struct PlayCheckRecallTests {
    static func verifier(_ body: JSONValue) -> PlayIntegrityVerifier {
        var configuration = Fixture.configuration
        configuration.endpoint = "http://127.0.0.1:9"
        return PlayIntegrityVerifier(
            configuration: configuration,
            accessTokens: StubAccessTokens(),
            transport: ClosureTransport { _ in HTTPResponse(status: 200, body: body.serializedBytes) },
            budget: InMemoryDecodeBudget(),
            quota: CountingQuotaGuard(),
            logger: Logger(sink: CapturingLogSink())
        )
    }

    static let setBit = JSONValue.object(["values": .object(["bitFirst": .bool(true)])])

    @Test func aGenuineVerdictCarriesItsRecall() async throws {
        let body = try Fixture.json("decode_standard_pass_minimal.json").setting(
            DeviceRecallParsingTests.path,
            to: Self.setBit
        )
        let check = await Self.verifier(body).check(
            token: "a.b",
            deviceID: "device-1",
            expectedRequestHash: Fixture.requestHash,
            now: Fixture.now
        )
        #expect(check.result == .genuine)
        #expect(check.recall == .values(DeviceRecall(bitFirst: true)))
    }

    @Test func aRejectedVerdictCarriesNone() async throws {
        let body = try Fixture.json("decode_standard_pass_minimal.json").setting(
            DeviceRecallParsingTests.path,
            to: Self.setBit
        )
        let check = await Self.verifier(body).check(
            token: "a.b",
            deviceID: "device-1",
            expectedRequestHash: "another-hash",
            now: Fixture.now
        )
        #expect(check.result == .rejected(.requestHashMismatch))
        #expect(check.recall == .absent)
    }
}

/// `GoogleDeviceRecallWriter`: the request Google's `deviceRecall.write` takes and every failure's slug.
@Suite struct GoogleDeviceRecallWriterTests {
    static func writer(
        tokens: StubAccessTokens = StubAccessTokens(),
        endpoint: String = "http://127.0.0.1:9//",
        _ respond: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
    ) -> (GoogleDeviceRecallWriter, ClosureTransport) {
        var configuration = Fixture.configuration
        configuration.endpoint = endpoint
        configuration.decodeTimeout = .seconds(4)
        let transport = ClosureTransport(respond)
        let writer = GoogleDeviceRecallWriter(
            configuration: configuration,
            accessTokens: tokens,
            transport: transport,
            logger: Logger(sink: CapturingLogSink())
        )
        return (writer, transport)
    }

    static func failure(_ writer: GoogleDeviceRecallWriter) async -> DeviceRecallError.Reason? {
        do {
            try await writer.setFirstBit(integrityToken: "tok.en", now: Fixture.now)
            return nil
        } catch {
            return error.reason
        }
    }

    @Test func theWriteSetsOnlyTheFirstBitWithTheDecodesBearerToken() async throws {
        let (writer, transport) = Self.writer { _ in HTTPResponse(status: 200, body: Array("{}".utf8)) }
        try await writer.setFirstBit(integrityToken: "tok.en", now: Fixture.now)
        let request = try #require(transport.sent.first)
        #expect(transport.sent.count == 1)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:9/v1/com.package.name/deviceRecall:write")
        #expect(request.headers.contains(HTTPHeader("Authorization", "Bearer test-access-token")))
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/json")))
        #expect(
            try JSONValue.parse(request.body)
                == .object(["integrityToken": .string("tok.en"), "newValues": .object(["bitFirst": .bool(true)])])
        )
        #expect(request.timeout == .seconds(4))
    }

    @Test(arguments: [
        (400, DeviceRecallError.Reason.rejected), (401, .unauthorized), (403, .unauthorized), (404, .refused),
        (408, .transport), (409, .refused), (429, .rateLimited), (500, .serverError), (503, .serverError),
        (302, .refused),
    ])
    func everyStatusButSuccessIsAFailureWithItsSlug(_ status: Int, _ reason: DeviceRecallError.Reason) async {
        let tokens = StubAccessTokens()
        let (writer, _) = Self.writer(tokens: tokens) { _ in HTTPResponse(status: status, body: []) }
        #expect(await Self.failure(writer) == reason)
        // A 401/403 drops the cached access token, as the decode does.
        #expect(tokens.discards == ((status == 401 || status == 403) ? 1 : 0))
    }

    @Test func noAccessTokenMeansNoRequest() async {
        let (writer, transport) = Self.writer(tokens: StubAccessTokens(failure: GoogleAuthError(.keyRejected))) { _ in
            HTTPResponse(status: 200, body: [])
        }
        #expect(await Self.failure(writer) == .credentialsUnavailable)
        #expect(transport.sent.isEmpty)
    }

    @Test func aTransportFailureWithTimeLeftIsTransport() async {
        let (writer, _) = Self.writer { _ in throw HTTPError(.timeout) }
        #expect(await Self.failure(writer) == .transport)
    }

    @Test func theDeadlineBoundsTheWriteAndTooLittleTimeSendsNothing() async throws {
        let (writer, transport) = Self.writer { _ in HTTPResponse(status: 200, body: []) }
        try await Deadline.$current.withValue(Deadline.after(.seconds(2))) {
            try await writer.setFirstBit(integrityToken: "tok.en", now: Fixture.now)
        }
        let timeout = try #require(transport.sent.first?.timeout)
        #expect(timeout <= .seconds(2) && timeout > .seconds(1))
        let reason = await Deadline.$current.withValue(Deadline.after(.milliseconds(20))) {
            await Self.failure(writer)
        }
        #expect(reason == .deadlineExceeded)
        #expect(transport.sent.count == 1)
    }

    @Test func theSlugsAreBounded() {
        let reasons: [DeviceRecallError.Reason] = [
            .credentialsUnavailable, .rejected, .unauthorized, .rateLimited, .serverError, .transport,
            .deadlineExceeded, .refused,
        ]
        #expect(Set(reasons.map(\.slug)).count == reasons.count)
        #expect(reasons.allSatisfy { $0.slug.hasPrefix("play.recall.") })
    }
}
