import AttestCore
import FoundationEssentials
import LambdaRuntime
import TestSupport
import Testing

@Suite struct RouterTests {
    func router() throws -> Router<String> {
        var router = Router<String>()
        try router.add("POST", "/v1/generate", "generate")
        try router.add("POST", "/v1/tutor/{deckId}/{cardId}", "tutor")
        try router.add("POST", "/v1/tutor/special/{cardId}", "special")
        try router.add("GET", "/v1/generate", "status")
        return router
    }

    @Test func matchesLiteralAndParameters() throws {
        let router = try router()
        guard case .matched(let target, let parameters) = router.resolve(method: "post", path: "/v1/tutor/d1/c2")
        else {
            Issue.record("no match")
            return
        }
        #expect(target == "tutor")
        #expect(parameters == ["deckId": "d1", "cardId": "c2"])
        guard case .matched(let special, _) = router.resolve(method: "POST", path: "/v1/tutor/special/c2") else {
            Issue.record("no match")
            return
        }
        #expect(special == "special")
    }

    @Test func unknownPathIsNotFoundWrongMethodIsNotAllowed() throws {
        let router = try router()
        guard case .notFound = router.resolve(method: "POST", path: "/v1/tutor/d1") else {
            Issue.record()
            return
        }
        guard case .notFound = router.resolve(method: "POST", path: "/v1/generate/") else {
            Issue.record()
            return
        }
        guard case .notFound = router.resolve(method: "POST", path: "/v1/tutor//c") else {
            Issue.record()
            return
        }
        guard case .methodNotAllowed(let allowed) = router.resolve(method: "DELETE", path: "/v1/generate") else {
            Issue.record()
            return
        }
        #expect(allowed == ["GET", "POST"])
    }

    @Test(arguments: ["v1/x", "/a//b", "/a/{", "/a/{b}{c}", "/a/{b}/{b}", "/a/{b-c}", "/a?x"])
    func invalidPatternsAreRefused(pattern: String) {
        var router = Router<String>()
        #expect(throws: Router<String>.RouteError.self) { try router.add("GET", pattern, "x") }
    }

    /// The same rule for patterns with non-ASCII text (checked on Characters rather than bytes).
    @Test(arguments: ["v1/é", "/é//b", "/é/{", "/é/{b}{c}", "/é/{b}/{b}", "/é/{b-c}", "/é?x", "/a/{é}", "/a/é}"])
    func invalidNonASCIIPatternsAreRefused(pattern: String) {
        var router = Router<String>()
        #expect(throws: Router<String>.RouteError.self) { try router.add("GET", pattern, "x") }
    }

    @Test func rootAndNonASCIIPatternsMatch() throws {
        var router = Router<String>()
        try router.add("GET", "/", "root")
        try router.add("GET", "/café/{id}", "cafe")
        guard case .matched(let root, let none) = router.resolve(method: "GET", path: "/"),
            case .matched(let cafe, let parameters) = router.resolve(method: "GET", path: "/café/7")
        else {
            Issue.record("no match")
            return
        }
        #expect(root == "root" && none.isEmpty)
        #expect(cafe == "cafe" && parameters == ["id": "7"])
        #expect(try PathPattern("/café/{id}").expand(["id": "8"]) == "/café/8")
    }

    @Test func duplicateRouteIsRefused() throws {
        var router = Router<String>()
        try router.add("POST", "/a/{x}", "1")
        #expect(throws: Router<String>.RouteError.self) { try router.add("post", "/a/{x}", "2") }
    }

    @Test func expandFillsUpstreamPath() throws {
        #expect(try PathPattern("/tutor/{deckId}/{cardId}").expand(["deckId": "d", "cardId": "c"]) == "/tutor/d/c")
    }
}

/// Answers with the route's name and parameters.
struct EchoRoute: APIRouteHandler {
    let name: String
    func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
        .json(
            200,
            .object(["route": .string(name), "params": .object(request.pathParameters.mapValues(JSONValue.string))])
        )
    }
}

@Suite struct APIGatewayLambdaHandlerTests {
    let context = InvocationContext(
        requestID: "r",
        deadline: Date(timeIntervalSince1970: 2_000_000_000),
        invokedFunctionARN: "",
        traceID: nil,
        logger: Logger(sink: CapturingLogSink())
    )

    func handler() throws -> APIGatewayLambdaHandler {
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/v1/tutor/{deckId}/{cardId}", EchoRoute(name: "tutor"))
        return APIGatewayLambdaHandler(router: router)
    }

    func event(_ method: String, _ path: String) -> [UInt8] {
        Array(#"{"version":"2.0","rawPath":"\#(path)","requestContext":{"http":{"method":"\#(method)"}}}"#.utf8)
    }

    @Test func routesAndAnswersInTheEventFormat() async throws {
        let out = try JSONValue.parse(try await handler().handle(event("POST", "/v1/tutor/a/b"), context: context))
        #expect(out["statusCode"] == .int(200))
        let body = try JSONValue.parse(Array(out["body"]!.stringValue!.utf8))
        #expect(
            body
                == .object([
                    "route": .string("tutor"), "params": .object(["deckId": .string("a"), "cardId": .string("b")]),
                ])
        )
    }

    @Test(arguments: [
        ("GET", "/v1/tutor/a/b", 405, "method_not_allowed"),
        ("POST", "/nope", 404, "not_found"),
    ])
    func refusals(method: String, path: String, status: Int, code: String) async throws {
        let out = try JSONValue.parse(try await handler().handle(event(method, path), context: context))
        #expect(out["statusCode"] == .int(Int64(status)))
        #expect(out["body"] == .string(#"{"error":"\#(code)"}"#))
        if status == 405 { #expect(out["headers"]?["Allow"] == .string("POST")) }
    }

    @Test func malformedEventIsInvalidRequestNotAThrow() async throws {
        let out = try JSONValue.parse(try await handler().handle(Array("{".utf8), context: context))
        #expect(out["statusCode"] == .int(400))
        #expect(out["body"] == .string(#"{"error":"invalid_request"}"#))
    }
}
