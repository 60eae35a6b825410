import AttestCore
import CivilTime
import FoundationEssentials
import Synchronization
import TestSupport
import Testing
import WireContract

@testable import Gate

@Suite struct MeteredCallTests {
    let noon = Date(timeIntervalSince1970: 1_796_040_000)
    let device = "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"
    let route = MeteredRoute(
        path: "/v1/generate",
        feature: "generation",
        mode: .enforce,
        allowance: AllowancePolicy(firstDay: 2, laterDays: 1),
        upstreamPath: "/generate"
    )

    struct Stack {
        let call: MeteredCall
        let allowances: InMemoryAllowanceStore
        let ceiling: InMemoryCeilingStore
        let upstream: ScriptedUpstream
        let sink = CapturingLogSink()
        var logger: Logger { Logger(sink: sink) }
    }

    func stack(
        evidence: GateEvidence,
        ceiling limit: Int = 100,
        upstream: UpstreamResult = .answered(status: 200, contentType: "application/json", body: Array("{}".utf8))
    ) -> Stack {
        let allowances = InMemoryAllowanceStore()
        let ceiling = InMemoryCeilingStore()
        let challenges = InMemoryChallengeStore()
        let scripted = ScriptedUpstream(upstream)
        let call = MeteredCall(
            environment: "development",
            evidence: FixedEvidence(evidence: evidence),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: allowances, calendar: .utc),
            ceilingGuard: CeilingGuard(store: ceiling, dailyLimit: limit, calendar: .utc),
            upstream: scripted
        )
        return Stack(call: call, allowances: allowances, ceiling: ceiling, upstream: scripted)
    }

    /// `s.call.handle` at noon with five seconds left, logging to `s`'s sink: every test's call.
    func handle(_ s: Stack, _ request: MeteredRequest, route: MeteredRoute) async -> GateResponse {
        await s.call.handle(request, route: route, now: noon, deadline: .after(.seconds(5)), logger: s.logger)
    }

    func request(device: String? = nil, user: String? = nil, paid: Bool = false) -> MeteredRequest {
        var headers: [String: String] = [:]
        if let device = device ?? (user == nil ? self.device : nil) { headers[WireHeader.deviceID.key] = device }
        return MeteredRequest(
            method: "POST",
            rawPath: "/v1/generate",
            headers: headers,
            body: [],
            userSub: user,
            paid: paid
        )
    }

    @Test(arguments: ["", "not-a-uuid", "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f1", "5f1c3a52x8f4e-4c39-9a55-0d3b1b7e2f10"])
    func aMissingOrMalformedDeviceIDIsRefusedBeforeAnythingIsSpent(id: String) async {
        let s = stack(evidence: .genuine(proof: .appAttest))
        let response = await handle(s, request(device: id), route: route)
        #expect(response.status == 400 && response.body == Array(#"{"error":"invalid_device_id"}"#.utf8))
        #expect(s.upstream.calls.load(ordering: .relaxed) == 0)
    }

    @Test func enforceRefusesNoProofWithoutTouchingTheOtherLayers() async {
        let s = stack(evidence: .absent)
        let response = await handle(s, request(), route: route)
        #expect(response.status == 403 && response.body == Array(#"{"error":"attestation_required"}"#.utf8))
        #expect(s.ceiling.used("2026-11-30") == 0 && s.upstream.calls.load(ordering: .relaxed) == 0)
        #expect(s.sink.objects.last?["block"] == .int(1))
    }

    @Test func monitorServesNoProofAndLogsWouldBlock() async {
        let s = stack(evidence: .absent)
        var monitored = route
        monitored.mode = .monitor
        let response = await handle(s, request(), route: monitored)
        #expect(response.status == 200)
        let line = s.sink.objects.last
        #expect(line?["would_block"] == .int(1) && line?["decision"] == .string("would_block"))
    }

    @Test func allowanceRunsOutWith429AndRetryAfterAndCaseVariantsShareIt() async {
        let s = stack(evidence: .genuine(proof: .appAttest))
        let first = await handle(s, request(), route: route)
        #expect(first.status == 200 && first.headers[WireHeader.quotaRemaining.key] == "1")
        #expect(first.headers[WireHeader.nextChallenge.key] != nil)
        _ = await handle(s, request(device: device.uppercased()), route: route)
        let third = await handle(s, request(), route: route)
        #expect(third.status == 429 && third.headers["retry-after"] == String(12 * 3600))
        #expect(s.upstream.calls.load(ordering: .relaxed) == 2)
    }

    @Test func aSpentCeilingRefusesFreeCallsKeepsTheirAllowanceUnitAndPassesPaidUsers() async {
        let s = stack(evidence: .genuine(proof: .appAttest), ceiling: 1)
        #expect(await handle(s, request(), route: route).status == 200)
        let refused = await handle(s, request(), route: route)
        #expect(refused.status == 503 && refused.body == Array(#"{"error":"daily_budget_exhausted"}"#.utf8))
        #expect(refused.headers["retry-after"] != nil)
        // The refused call's allowance unit stays spent: the device is now out of its allowance.
        #expect(await handle(s, request(), route: route).status == 429)
        let paid = await handle(s, request(user: "user-1", paid: true), route: route)
        #expect(paid.status == 200)
    }

    /// (upstream result, policy, released, status, `upstream` label)
    static let releaseCases: [(UpstreamResult, ReleasePolicy, Bool, Int, String)] = [
        (.failed(.notSent, reason: "t"), .unbilled, true, 502, "unsent"),
        (.answered(status: 429, contentType: nil, body: []), .unbilled, true, 502, "refused_429"),
        (.answered(status: 503, contentType: nil, body: []), .unbilled, true, 502, "refused_503"),
        (.answered(status: 529, contentType: nil, body: []), .unbilled, true, 502, "refused_529"),
        (.answered(status: 500, contentType: nil, body: []), .unbilled, false, 502, "failed_500"),
        (.failed(.timedOut, reason: "t"), .unbilled, false, 504, "timeout_kept"),
        (.failed(.lost, reason: "t"), .unbilled, false, 502, "lost_kept"),
        (.failed(.cut, reason: "t"), .unbilled, false, 502, "cut_kept"),
        (.failed(.tooLarge, reason: "t"), .unbilled, false, 502, "too_large_kept"),
        (.failed(.timedOut, reason: "t"), .seed, true, 504, "timeout_released"),
        (.answered(status: 500, contentType: nil, body: []), .seed, true, 502, "refused_500"),
        (.failed(.tooLarge, reason: "t"), .seed, false, 502, "too_large_kept"),
    ]

    @Test(arguments: releaseCases)
    func unitsComeBackOnlyWhenThePolicySaysTheCallWasNotBilled(
        result: UpstreamResult,
        policy: ReleasePolicy,
        released: Bool,
        status: Int,
        label: String
    ) async {
        let s = stack(evidence: .genuine(proof: .appAttest), upstream: result)
        var route = self.route
        route.release = policy
        route.allowance = AllowancePolicy(firstDay: 10, laterDays: 10)
        for _ in 0..<3 {
            let response = await handle(s, request(), route: route)
            #expect(response.status == status && response.body == Array(#"{"error":"upstream_unavailable"}"#.utf8))
            #expect(s.sink.objects.last?["upstream"] == .string(label))
        }
        #expect(s.ceiling.used("2026-11-30") == (released ? 0 : 3))
        s.upstream.result.withLock { $0 = .answered(status: 200, contentType: nil, body: []) }
        #expect(await handle(s, request(), route: route).status == 200)
        #expect(s.ceiling.used("2026-11-30") == (released ? 1 : 4))
    }

    /// The provider's content type reaches the client only as a clean header value: a bare CR, a control
    /// byte or non-ASCII would let the provider write a line of its own into the response head.
    @Test(
        arguments: [
            ("application/json; charset=utf-8", "application/json; charset=utf-8"),
            ("text/event-stream\rSet-Cookie: injected=1", nil),
            ("text/plain\u{01}", nil),
            ("text/plain; name=é", nil),
            ("", nil),
        ] as [(String, String?)]
    )
    func theProvidersContentTypePassesOnlyWhenClean(_ sent: String, _ passed: String?) async {
        let s = stack(
            evidence: .genuine(proof: .appAttest),
            upstream: .answered(status: 200, contentType: sent, body: Array("{}".utf8))
        )
        let response = await handle(s, request(), route: route)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == passed)
        #expect(MeteredCall.passedOn(sent) == passed)
    }

    @Test func aBodyOverTheRoutesLimitIsRefusedBeforeAnythingIsSpent() async {
        let s = stack(evidence: .genuine(proof: .appAttest))
        var route = self.route
        route.maxRequestBytes = 10
        let big = MeteredRequest(
            method: "POST",
            rawPath: "/v1/generate",
            headers: [WireHeader.deviceID.key: "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"],
            body: Array(repeating: 0x20, count: 11)
        )
        let response = await handle(s, big, route: route)
        #expect(response.status == 413 && response.body == Array(#"{"error":"request_too_large"}"#.utf8))
        #expect(s.ceiling.used("2026-11-30") == 0)
        #expect(s.upstream.calls.load(ordering: .relaxed) == 0)
    }

    @Test func aFailingAllowanceStoreFailsClosed() async {
        let s = stack(evidence: .genuine(proof: .appAttest))
        s.allowances.failing.store(true, ordering: .relaxed)
        let response = await handle(s, request(), route: route)
        #expect(response.status == 503 && response.body == Array(#"{"error":"unavailable"}"#.utf8))
        #expect(s.upstream.calls.load(ordering: .relaxed) == 0)
    }
}

/// Play Integrity was unavailable and the merge refused the call.
struct UnavailableThenRejected: EvidenceSource {
    func evaluate(request: MeteredRequest, deviceID: String, route: MeteredRoute, now: Date) async -> EvidenceReport {
        EvidenceReport(
            evidence: .rejected(proof: .playIntegrity, reason: "play.google_unavailable"),
            spentChallenge: true,
            providerUnavailable: true
        )
    }
}

@Suite struct MergedUnavailabilityTests {
    @Test func aBindingOutageRefusedByTheMergeStillCountsAsUnavailable() async {
        let challenges = InMemoryChallengeStore()
        let call = MeteredCall(
            environment: "development",
            evidence: UnavailableThenRejected(),
            profiles: challenges,
            challenges: challenges,
            allowances: AllowanceMeter(store: InMemoryAllowanceStore(), calendar: .utc),
            ceilingGuard: CeilingGuard(store: InMemoryCeilingStore(), dailyLimit: 0, calendar: .utc),
            upstream: ScriptedUpstream(.answered(status: 200, contentType: nil, body: []))
        )
        let sink = CapturingLogSink()
        let route = MeteredRoute(path: "/v1/generate", feature: "generation", mode: .enforce, upstreamPath: "/generate")
        let request = MeteredRequest(
            method: "POST",
            rawPath: "/v1/generate",
            headers: [WireHeader.deviceID.key: "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"],
            body: []
        )
        let response = await call.handle(
            request,
            route: route,
            now: Date(),
            deadline: .after(.seconds(5)),
            logger: Logger(sink: sink)
        )
        #expect(response.status == 403)
        let line = sink.objects.last
        #expect(line?["unavailable"] == .int(1) && line?["block"] == .int(1))
    }
}
