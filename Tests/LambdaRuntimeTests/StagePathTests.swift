import AttestCore
import FoundationEssentials
import LambdaRuntime
import TestSupport
import Testing

/// Answers with the route's name and the path request binding will compare (`rawPath`).
struct CalledPathRoute: APIRouteHandler {
    let name: String
    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
        .json(
            200,
            .object([
                "route": .string(name), "called": .string(request.rawPath),
                "params": .object(request.pathParameters.mapValues(JSONValue.string)),
            ])
        )
    }
}

/// AWS's sample events moved to a named stage (`prod`, or the REST sample's `testStage`): routing uses the
/// path without the stage, request binding the path the client actually called.
///
/// HTTP API keeps a named stage's segment in `rawPath` / `requestContext.http.path` (2.0) and in `path` /
/// `requestContext.path` (1.0); REST removes it from `path` and keeps it in `requestContext.path`.
@Suite struct StagePathTests {
    let context = InvocationContext(
        requestID: "r",
        deadline: Date(timeIntervalSince1970: 2_000_000_000),
        invokedFunctionARN: "",
        traceID: nil,
        logger: Logger(sink: CapturingLogSink())
    )

    func handler() throws -> APIGatewayLambdaHandler {
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/v1/tutor/{deckId}/{cardId}", CalledPathRoute(name: "tutor"))
        try router.add("POST", "/v1/generate", CalledPathRoute(name: "generate"))
        return APIGatewayLambdaHandler(router: router)
    }

    /// The sample event of `fixture`, called as POST `called` on stage `stage` (`routed` is REST's `path`).
    static func event(_ fixture: String, stage: String, called: String, routed: String) throws -> [UInt8] {
        var event = try JSONValue.parse(Fixture.bytes(fixture))
        if fixture.contains("v2.0") {
            event = event.setting(["rawPath"], .string(called)).setting(
                ["requestContext", "http", "path"],
                .string(called)
            )
            .setting(["requestContext", "http", "method"], "POST")
        } else {
            let rest = fixture.contains("rest")
            event = event.setting(["httpMethod"], "POST").setting(["path"], .string(rest ? routed : called))
                .setting(["requestContext", "path"], .string(called))
            if rest { event = event.setting(["resource"], "/v1/tutor/{deckId}/{cardId}") }
        }
        return event.setting(["requestContext", "stage"], .string(stage)).serializedBytes
    }

    @Test(arguments: [
        ("lambda/apigw-http-v2.0-request.aws-docs.json", "prod", "/prod/v1/tutor/d1/c1"),
        ("lambda/apigw-http-v1.0-request.aws-docs.json", "prod", "/prod/v1/tutor/d1/c1"),
        ("lambda/apigw-rest-v1.0-request.aws-lambda-go.json", "testStage", "/testStage/v1/tutor/d1/c1"),
        // $default has no segment in the path.
        ("lambda/apigw-http-v2.0-request.aws-docs.json", "$default", "/v1/tutor/d1/c1"),
    ])
    func aNamedStageRoutesWithoutItsSegmentAndBindsThePathTheClientCalled(
        fixture: String,
        stage: String,
        called: String
    ) async throws {
        let event = try Self.event(fixture, stage: stage, called: called, routed: "/v1/tutor/d1/c1")
        let request = try APIGatewayRequest(event: event)
        #expect(request.rawPath == called)
        let out = try JSONValue.parse(try await handler().handle(event, context: context))
        #expect(out["statusCode"] == .int(200), "\(out)")
        let body = try JSONValue.parse(Array((out["body"]?.stringValue ?? "").utf8))
        #expect(body["route"] == "tutor")
        #expect(body["called"] == .string(called))
        #expect(body["params"] == .object(["deckId": "d1", "cardId": "c1"]))
    }

    /// A custom domain serves a stage without its segment: a route whose first segment is the stage's
    /// name still matches as called.
    @Test func aPathThatOnlyLooksLikeTheStageStillRoutesAsCalled() async throws {
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/prod/generate", CalledPathRoute(name: "prod-generate"))
        let event = try Self.event(
            "lambda/apigw-http-v2.0-request.aws-docs.json",
            stage: "prod",
            called: "/prod/generate",
            routed: ""
        )
        let out = try JSONValue.parse(try await APIGatewayLambdaHandler(router: router).handle(event, context: context))
        #expect(out["statusCode"] == .int(200), "\(out)")
        let unknown = try Self.event(
            "lambda/apigw-http-v2.0-request.aws-docs.json",
            stage: "prod",
            called: "/prod/nope",
            routed: ""
        )
        let missing = try JSONValue.parse(try await handler().handle(unknown, context: context))
        #expect(missing["statusCode"] == .int(404))
    }
}

extension JSONValue {
    /// A copy with the member at `path` (objects only) set to `value`, creating objects on the way.
    func setting(_ path: [String], _ value: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var members = objectValue ?? [:]
        members[key] = (members[key] ?? .object([:])).setting(Array(path.dropFirst()), value)
        return .object(members)
    }
}
