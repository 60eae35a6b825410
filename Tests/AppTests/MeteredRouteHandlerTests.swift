import App
import AttestCore
import FoundationEssentials
import Gate
import LambdaRuntime
import Synchronization
import TestSupport
import Testing
import WireContract

/// Records the metered request it receives.
final class RecordingPipeline: MeteredPipeline {
    let seen = Mutex<[(MeteredRequest, MeteredRoute, Duration)]>([])

    func handle(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: AttestCore.Deadline,
        logger: Logger
    ) async
        -> GateResponse
    {
        seen.withLock { $0.append((request, route, deadline.remaining)) }
        return GateResponse(status: 200, headers: [WireHeader.quotaRemaining.key: "3"], body: Array("ok".utf8))
    }
}

@Suite struct MeteredRouteHandlerTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func handler(_ pipeline: RecordingPipeline, paidClaim: String? = "plan=paid") throws -> APIGatewayLambdaHandler {
        let env = ConfigurationTests.minimal.with("PAID_CLAIM", paidClaim)
        return try Application.apiHandler(
            configuration: Configuration(environment: env),
            pipeline: pipeline,
            clock: FixedClock(now)
        )
    }

    var context: InvocationContext {
        InvocationContext(
            requestID: "r1",
            deadline: now.addingTimeInterval(2.5),
            invokedFunctionARN: "",
            traceID: nil,
            logger: Logger(sink: CapturingLogSink())
        )
    }

    func event(claims: String) -> [UInt8] {
        Array(
            #"""
            {"version":"2.0","rawPath":"/v1/tutor/d1/c1","headers":{"x-device-id":"A","X-Attest-Challenge":"c"},
             "requestContext":{"http":{"method":"POST"},"authorizer":{"jwt":{"claims":\#(claims)}}},"body":"hi"}
            """#.utf8
        )
    }

    @Test func theMeteredRequestCarriesHeadersClaimsAndTheRemainingTime() async throws {
        let pipeline = RecordingPipeline()
        let out = try JSONValue.parse(
            try await handler(pipeline).handle(event(claims: #"{"sub":"user-1","plan":"paid"}"#), context: context)
        )
        #expect(out["statusCode"] == .int(200))
        #expect(out["headers"]?[WireHeader.quotaRemaining.key] == .string("3"))
        let (request, route, remaining) = try #require(pipeline.seen.withLock { $0.first })
        #expect(route.feature == "tutor")
        #expect(request.rawPath == "/v1/tutor/d1/c1")
        #expect(request.header(WireHeader.challenge.name) == "c")
        #expect(request.body == Array("hi".utf8))
        #expect(request.userSub == "user-1")
        #expect(request.paid)
        // The invocation's deadline (2.5 s after the fixed `now`) became the pipeline's deadline.
        #expect(remaining <= .milliseconds(2500) && remaining > .milliseconds(1500))
    }

    @Test func aClaimThatDoesNotMatchIsNotPaid() async throws {
        let pipeline = RecordingPipeline()
        _ = try await handler(pipeline).handle(event(claims: #"{"sub":"user-1","plan":"free"}"#), context: context)
        _ = try await handler(pipeline, paidClaim: nil).handle(
            event(claims: #"{"sub":"u","plan":"paid"}"#),
            context: context
        )
        #expect(pipeline.seen.withLock { $0.map(\.0.paid) } == [false, false])
    }
}
