import AttestCore
import FoundationEssentials
import HTTPClient
import TestSupport
import Testing
import WireContract

@testable import PlayIntegrity

@Suite struct PlayIntegrityVerifierTests {
    struct Rig {
        let tokens: StubAccessTokens
        let transport: ClosureTransport
        let budget: InMemoryDecodeBudget
        let quota: CountingQuotaGuard
        let verifier: PlayIntegrityVerifier

        init(
            tokens: StubAccessTokens = StubAccessTokens(),
            budget: InMemoryDecodeBudget = InMemoryDecodeBudget(),
            quota: CountingQuotaGuard = CountingQuotaGuard(),
            respond: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse
        ) {
            self.tokens = tokens
            self.budget = budget
            self.quota = quota
            self.transport = ClosureTransport(respond)
            var configuration = Fixture.configuration
            configuration.endpoint = "http://127.0.0.1:9/"
            self.verifier = PlayIntegrityVerifier(
                configuration: configuration,
                accessTokens: tokens,
                transport: transport,
                budget: budget,
                quota: quota,
                logger: Logger(sink: CapturingLogSink())
            )
        }

        func verify(_ token: String = "header.key.iv.ciphertext.tag") async -> PlayIntegrityResult {
            await verifier.verify(
                token: token,
                deviceID: "device-1",
                expectedRequestHash: Fixture.requestHash,
                now: Fixture.now
            )
        }
    }

    static func fixtureResponse(_ name: String, status: Int = 200) -> @Sendable (HTTPRequest) throws -> HTTPResponse {
        { _ in HTTPResponse(status: status, body: try Fixture.bytes(name)) }
    }

    @Test func genuineStandardTokenPassesAndTheRequestIsWellFormed() async throws {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        #expect(await rig.verify("abc.def") == .genuine)
        let request = try #require(rig.transport.sent.first)
        #expect(request.method == "POST")
        #expect(request.url == "http://127.0.0.1:9/v1/com.package.name:decodeIntegrityToken")
        #expect(request.headers.contains(HTTPHeader("Authorization", "Bearer test-access-token")))
        #expect(try JSONValue.parse(request.body) == .object(["integrityToken": .string("abc.def")]))
        #expect(rig.budget.used("device-1") == 1)
        #expect(rig.quota.count == 1)
    }

    @Test(arguments: [
        ("decode_standard_pass_all_optin.json", AttestationOutcome.genuine),
        ("decode_forward_compat_unknown_fields.json", .genuine),
        ("decode_standard_virtual_integrity.json", .rejected),
        ("decode_standard_device_fail_unevaluated.json", .rejected),
        ("decode_standard_device_fail_empty_list.json", .rejected),
        ("decode_standard_tampered_app_risky_env.json", .rejected),
        ("decode_testing_response.json", .rejected),
        ("decode_classic_doc_example.json", .rejected),
        ("decode_classic_real_new_vs_legacy_verdicts.json", .rejected),
    ])
    func everyFixtureDecodesToGenuineOrRejectedNeverUnavailable(_ name: String, _ outcome: AttestationOutcome) async {
        let rig = Rig(respond: Self.fixtureResponse(name))
        #expect(await rig.verify().outcome == outcome)
    }

    @Test func overlongTokenIsRejectedBeforeAnyCost() async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        let result = await rig.verify(String(repeating: "a", count: 16_385))
        #expect(result == .rejected(.tokenTooLong))
        #expect(rig.tokens.calls == 0 && rig.budget.used("device-1") == 0 && rig.quota.count == 0)
        #expect(rig.transport.sent.isEmpty)
        #expect(await rig.verify(String(repeating: "a", count: 16_384)) == .genuine)
    }

    @Test(arguments: ["", "a b", "abc\"def", "tok\u{0}en", "é"])
    func emptyOrNonTokenCharactersAreRejectedBeforeAnyCost(_ token: String) async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        #expect(await rig.verify(token).outcome == .rejected)
        #expect(rig.tokens.calls == 0 && rig.budget.used("device-1") == 0 && rig.transport.sent.isEmpty)
    }

    @Test func credentialFailureIsUnavailableAndSpendsNoBudget() async {
        let rig = Rig(
            tokens: StubAccessTokens(failure: GoogleAuthError(.keyRejected)),
            respond: Self.fixtureResponse("decode_standard_pass_minimal.json")
        )
        #expect(await rig.verify() == .unavailable(.credentialsUnavailable))
        #expect(rig.budget.used("device-1") == 0 && rig.quota.count == 0 && rig.transport.sent.isEmpty)
    }

    @Test func thirtyFirstDecodeOfTheDayIsRejectedWithoutCallingGoogle() async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        for _ in 0..<30 { #expect(await rig.verify() == .genuine) }
        #expect(await rig.verify() == .rejected(.budgetExhausted))
        #expect(rig.transport.sent.count == 30)
        #expect(rig.quota.count == 30)
    }

    @Test func budgetStoreErrorIsUnavailableWithoutDecoding() async {
        let rig = Rig(
            budget: InMemoryDecodeBudget(failing: true),
            respond: Self.fixtureResponse("decode_standard_pass_minimal.json")
        )
        #expect(await rig.verify() == .unavailable(.budgetStoreFailed))
        #expect(rig.transport.sent.isEmpty)
    }

    @Test(arguments: [
        (DecodeQuotaDecision.capReached, PlayIntegrityError.Reason.quotaSoftCapReached),
        (.storeFailed, .quotaStoreFailed),
    ])
    func quotaGuardRefusalIsUnavailableWithoutDecoding(
        _ answer: DecodeQuotaDecision,
        _ reason: PlayIntegrityError.Reason
    ) async {
        let rig = Rig(
            quota: CountingQuotaGuard(answer),
            respond: Self.fixtureResponse("decode_standard_pass_minimal.json")
        )
        #expect(await rig.verify() == .unavailable(reason))
        #expect(rig.transport.sent.isEmpty)
    }

    @Test(arguments: [
        (400, "error_400_invalid_argument.json", PlayIntegrityResult.rejected(.decodeInvalidToken)),
        (401, "error_401_unauthenticated.json", .unavailable(.decodeUnauthorized)),
        (403, "error_403_not_authorized_to_decode.json", .unavailable(.decodeUnauthorized)),
        (429, "error_429_resource_exhausted.json", .unavailable(.decodeRateLimited)),
        (500, "error_400_invalid_argument.json", .unavailable(.decodeServerError)),
        (503, "error_400_invalid_argument.json", .unavailable(.decodeServerError)),
        (404, "error_400_invalid_argument.json", .rejected(.decodeRefused)),
    ])
    func decodeStatusMapping(_ status: Int, _ body: String, _ expected: PlayIntegrityResult) async {
        let rig = Rig(respond: Self.fixtureResponse(body, status: status))
        #expect(await rig.verify() == expected)
    }

    @Test func decodeUnauthorizedDiscardsTheCachedAccessToken() async {
        let rig = Rig(respond: Self.fixtureResponse("error_401_unauthenticated.json", status: 401))
        _ = await rig.verify()
        #expect(rig.tokens.discards == 1)
    }

    @Test func theDecodeEndsWithinTheInvocationsDeadline() async throws {
        // The 5 s cap is cut to what the invocation has left, or Google could outlive it (docs/playintegrity.md).
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        _ = await Deadline.$current.withValue(.after(.milliseconds(700))) { await rig.verify() }
        let bounded = try #require(rig.transport.sent.last?.timeout)
        #expect(bounded <= .milliseconds(700) && bounded > .zero)
        _ = await rig.verify()
        #expect(rig.transport.sent.last?.timeout == .seconds(5))
    }

    /// With too little of the invocation left, neither the device's budget nor the project's quota is spent
    /// and Google is not asked.
    @Test(arguments: [0, 50])
    func tooLittleTimeLeftSpendsNothing(millisecondsLeft: Int) async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        let result = await Deadline.$current.withValue(.after(.milliseconds(millisecondsLeft))) { await rig.verify() }
        #expect(result == .unavailable(.noTimeLeft))
        #expect(rig.budget.used("device-1") == 0 && rig.quota.count == 0 && rig.transport.sent.isEmpty)
    }

    @Test func transportFailureIsUnavailable() async {
        let rig = Rig { _ in throw HTTPError(.timeout, detail: "test") }
        #expect(await rig.verify() == .unavailable(.decodeTransport))
    }

    @Test(arguments: ["not json", "{}", "{\"tokenPayloadExternal\": 5}", "[]"])
    func malformedSuccessBodyIsRejectedNotUnavailable(_ body: String) async {
        let rig = Rig { _ in HTTPResponse(status: 200, body: Array(body.utf8)) }
        #expect(await rig.verify().outcome == .rejected)
    }

    @Test func strongRouteRefusesADeviceOnlyVerdict() async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        let result = await rig.verifier.verify(
            token: "t",
            deviceID: "device-1",
            expectedRequestHash: Fixture.requestHash,
            deviceIntegrity: .strong,
            now: Fixture.now
        )
        #expect(result == .rejected(.deviceIntegrityInsufficient))
    }

    @Test func tokenBoundToAnotherRequestIsRejected() async {
        let rig = Rig(respond: Self.fixtureResponse("decode_standard_pass_minimal.json"))
        let result = await rig.verifier.verify(
            token: "t",
            deviceID: "device-1",
            expectedRequestHash: ChallengeBinding.playRequestHash(deviceID: "device-1", challengeBase64: "AAAA"),
            now: Fixture.now
        )
        #expect(result == .rejected(.requestHashMismatch))
    }
}
