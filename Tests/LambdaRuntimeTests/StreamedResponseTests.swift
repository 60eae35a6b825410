import AttestCore
import FoundationEssentials
import LambdaRuntime
import TestSupport
import Testing

/// Streams three chunks, or fails after the first one when the event says `fail`.
struct StreamingHandler: LambdaHandler {
    func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] { event }

    func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse {
        if event == Array("buffered".utf8) { return .buffered(event) }
        let fails = event == Array("fail".utf8)
        return .streamed(
            .http(status: 200, headers: [("Content-Type", "text/event-stream")]) { writer in
                do throws(RuntimeAPIError) {
                    try await writer.write(Array("data: one\n\n".utf8))
                    if fails {
                        return .failed(FunctionError(type: "Upstream.StreamCut", message: "http.connection_reset"))
                    }
                    try await writer.write(Array("data: two\n\n".utf8))
                    try await writer.write(Array("data: three\n\n".utf8))
                    return .finished
                } catch {
                    return .failed(FunctionError(type: "Runtime.StreamClosed", message: error.reason.slug))
                }
            }
        )
    }
}

@Suite struct StreamedResponseTests {
    let logger = Logger(level: .error, sink: CapturingLogSink())

    static let prelude =
        Array(#"{"cookies":[],"headers":{"Content-Type":"text/event-stream"},"statusCode":200}"#.utf8)
        + [UInt8](repeating: 0, count: 8)

    /// A streamed response is given up `abandonMargin` before the invocation's deadline at the latest (read
    /// from the run loop's clock), and earlier when its producer says so.
    @Test func theRunLoopGivesAStreamUpBeforeTheInvocationsDeadline() async throws {
        struct TenSecondsLeft: WallClock {
            func now() -> Date { Date(timeIntervalSince1970: 1_899_999_990) }  // the deadline is 1_900_000_000
        }
        struct Producer: LambdaHandler {
            func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] { event }
            func respond(to event: [UInt8], context: InvocationContext) async throws -> LambdaResponse {
                let own: ContinuousClock.Instant? = event == Array("own".utf8) ? .now + .seconds(2) : nil
                return .streamed(StreamedResponse(contentType: "text/plain", sendBy: own) { _ in .finished })
            }
        }
        let client = FakeRuntimeAPIClient([invocation("r1", body: "none"), invocation("r2", body: "own")])
        let started = ContinuousClock.now
        _ = await LambdaRunLoop(client: client, handler: Producer(), logger: logger, clock: TenSecondsLeft()).run()
        let took = ContinuousClock.now - started
        let sendBys = client.sendBys
        #expect(sendBys.count == 2)
        // 10 s left by the clock, less the margin, counted from a moment inside the run.
        let capped = try #require(sendBys.first ?? nil) - started
        let expected = .seconds(10) - StreamedResponse.abandonMargin
        #expect(capped >= expected - .milliseconds(1) && capped <= expected + took)
        let own = try #require(sendBys.last ?? nil) - started
        #expect(own > .seconds(1) && own <= .seconds(3))
    }

    @Test func aStreamedResponseIsPostedPreludeFirstThenChunkByChunk() async {
        let client = FakeRuntimeAPIClient([invocation("r1", body: "go")])
        _ = await LambdaRunLoop(client: client, handler: StreamingHandler(), logger: logger).run()
        #expect(
            client.posts == [
                .streamed(
                    requestID: "r1",
                    contentType: "application/vnd.awslambda.http-integration-response",
                    chunks: [Self.prelude]
                        + ["data: one\n\n", "data: two\n\n", "data: three\n\n"].map { Array($0.utf8) },
                    completion: .finished
                )
            ]
        )
    }

    @Test func aFailureAfterTheFirstByteEndsThatStreamAndTheLoopGoesOn() async {
        let client = FakeRuntimeAPIClient([invocation("r1", body: "fail"), invocation("r2", body: "buffered")])
        _ = await LambdaRunLoop(client: client, handler: StreamingHandler(), logger: logger).run()
        let failure = FunctionError(type: "Upstream.StreamCut", message: "http.connection_reset")
        #expect(
            client.posts == [
                .streamed(
                    requestID: "r1",
                    contentType: StreamedResponse.httpIntegrationContentType,
                    chunks: [Self.prelude, Array("data: one\n\n".utf8)],
                    completion: .failed(failure)
                ),
                .response(requestID: "r2", body: Array("buffered".utf8)),
            ]
        )
    }

    @Test func aClosedStreamStopsTheBodyAtItsNextWrite() async {
        let client = FakeRuntimeAPIClient([invocation("r1", body: "go")], acceptedChunks: 2)
        _ = await LambdaRunLoop(client: client, handler: StreamingHandler(), logger: logger).run()
        guard case .streamed(_, _, let chunks, let completion) = client.posts.first else {
            Issue.record("no streamed post")
            return
        }
        #expect(chunks.count == 2)
        #expect(completion == .failed(FunctionError(type: "Runtime.StreamClosed", message: "runtime.stream_closed")))
    }

    @Test func thePreludeIsJSONThenEightNulBytes() throws {
        let prelude = StreamedResponse.httpIntegrationPrelude(
            status: 201,
            headers: [("Content-Type", "text/event-stream"), ("X-Quota-Remaining", "3")],
            cookies: ["a=b"]
        )
        #expect(Array(prelude.suffix(8)) == [UInt8](repeating: 0, count: 8))
        let document = try JSONValue.parse(Array(prelude.dropLast(8)))
        #expect(document["statusCode"]?.intValue == 201)
        #expect(document["headers"]?["X-Quota-Remaining"]?.stringValue == "3")
        #expect(document["cookies"]?.arrayValue == [.string("a=b")])
    }

    @Test func aRouteAnsweringWithAStreamIsStreamedOthersStayBuffered() async throws {
        struct Streaming: APIRouteHandler {
            func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
                APIGatewayResponse(
                    status: 200,
                    headers: ["Content-Type": "text/event-stream"],
                    stream: ResponseStreamBody { writer in
                        (try? await writer.write(Array("data: x\n\n".utf8))) == nil
                            ? .failed(FunctionError(type: "t", message: "m")) : .finished
                    }
                )
            }
        }
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/v1/stream", Streaming())
        let handler = APIGatewayLambdaHandler(router: router)
        let event = Array(#"{"version":"2.0","rawPath":"/v1/stream","requestContext":{"http":{"method":"POST"}}}"#.utf8)
        let client = FakeRuntimeAPIClient([invocation("r1", body: String(decoding: event, as: UTF8.self))])
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        guard case .streamed(_, let type, let chunks, .finished) = client.posts.first else {
            Issue.record("not streamed: \(client.posts)")
            return
        }
        #expect(type == StreamedResponse.httpIntegrationContentType)
        #expect(chunks.last == Array("data: x\n\n".utf8))
        // A path the router does not know is still one buffered JSON answer.
        let missing = Array(#"{"version":"2.0","rawPath":"/nope","requestContext":{"http":{"method":"POST"}}}"#.utf8)
        let buffered = FakeRuntimeAPIClient([invocation("r2", body: String(decoding: missing, as: UTF8.self))])
        _ = await LambdaRunLoop(client: buffered, handler: handler, logger: logger).run()
        guard case .response = buffered.posts.first else {
            Issue.record("not buffered: \(buffered.posts)")
            return
        }
    }

    @Test func throughAFunctionURLEveryAnswerIsStreamedWithItsStatusInThePrelude() async throws {
        let handler = APIGatewayLambdaHandler(router: Router<any APIRouteHandler>())
        let event =
            #"{"version":"2.0","rawPath":"/nope","requestContext":{"domainName":"abc.lambda-url.eu-west-1.on.aws","#
            + #""http":{"method":"POST"}}}"#
        let client = FakeRuntimeAPIClient([invocation("r1", body: event)])
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        guard case .streamed(_, let type, let chunks, .finished) = client.posts.first, chunks.count == 2 else {
            Issue.record("not streamed: \(client.posts)")
            return
        }
        #expect(type == StreamedResponse.httpIntegrationContentType)
        let prelude = try JSONValue.parse(Array(chunks[0].dropLast(8)))
        #expect(prelude["statusCode"]?.intValue == 404)
        #expect(chunks[1] == Array(#"{"error":"not_found"}"#.utf8))
    }

    /// A Function URL serves only the routes that say so (streamed ones): any other route through it is a
    /// `404`, so the URL cannot bypass the HTTP API's stage throttle and authorizer for buffered routes.
    @Test func aFunctionURLServesOnlyTheRoutesThatSaySo() async throws {
        struct Echo: APIRouteHandler {
            let servedThroughFunctionURL: Bool
            func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
                APIGatewayResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("ok".utf8))
            }
        }
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/v1/stream", Echo(servedThroughFunctionURL: true))
        try router.add("POST", "/v1/buffered", Echo(servedThroughFunctionURL: false))
        let handler = APIGatewayLambdaHandler(router: router)
        func event(_ path: String, domain: String) -> String {
            #"{"version":"2.0","rawPath":"\#(path)","requestContext":{"domainName":"\#(domain)","#
                + #""http":{"method":"POST"}}}"#
        }
        let url = "abc.lambda-url.eu-west-1.on.aws"
        let api = "abc.execute-api.eu-west-1.amazonaws.com"
        let client = FakeRuntimeAPIClient([
            invocation("r1", body: event("/v1/stream", domain: url)),
            invocation("r2", body: event("/v1/buffered", domain: url)),
            invocation("r3", body: event("/v1/buffered", domain: api)),
        ])
        _ = await LambdaRunLoop(client: client, handler: handler, logger: logger).run()
        var statuses: [Int?] = []
        for post in client.posts {
            switch post {
            case .streamed(_, _, let chunks, _):
                statuses.append(
                    try JSONValue.parse(Array(chunks[0].dropLast(8)))["statusCode"]?.intValue.map { Int($0) }
                )
            case .response(_, let body):
                statuses.append(try JSONValue.parse(body)["statusCode"]?.intValue.map { Int($0) })
            default:
                statuses.append(nil)
            }
        }
        #expect(statuses == [200, 404, 200])
    }

    @Test func theBufferedHandleOfAStreamedRouteCollectsItsBody() async throws {
        struct Streaming: APIRouteHandler {
            func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
                APIGatewayResponse(
                    status: 200,
                    headers: ["Content-Type": "text/event-stream"],
                    stream: ResponseStreamBody { writer in
                        for piece in ["data: a\n\n", "data: b\n\n"] { try? await writer.write(Array(piece.utf8)) }
                        return .finished
                    }
                )
            }
        }
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/v1/stream", Streaming())
        let event = Array(#"{"version":"2.0","rawPath":"/v1/stream","requestContext":{"http":{"method":"POST"}}}"#.utf8)
        let context = InvocationContext(
            requestID: "r1",
            deadline: .distantFuture,
            invokedFunctionARN: "",
            traceID: nil,
            logger: logger
        )
        let out = try JSONValue.parse(try await APIGatewayLambdaHandler(router: router).handle(event, context: context))
        #expect(out["statusCode"]?.intValue == 200)
        #expect(out["headers"]?["Content-Type"]?.stringValue == "text/event-stream")
        #expect(out["body"]?.stringValue == "data: a\n\ndata: b\n\n")
    }

    /// Starts its streamed POST (`StreamStart`) before it answers, as a streamed route does when its call is
    /// admitted; then answers as the event says: a 502 JSON, a stream, a thrown error or a buffered payload.
    struct StartingHandler: APIRouteHandler {
        func handle(_ request: APIGatewayRequest, context: InvocationContext) async -> APIGatewayResponse {
            StreamStart.current?.start()
            switch request.rawPath {
            case "/stream":
                return APIGatewayResponse(
                    status: 200,
                    headers: ["Content-Type": "text/event-stream"],
                    stream: ResponseStreamBody { writer in
                        (try? await writer.write(Array("data: x\n\n".utf8))) == nil
                            ? .failed(FunctionError(type: "t", message: "m")) : .finished
                    }
                )
            default:
                return .refused(.upstreamUnavailable)
            }
        }
    }

    static func event(_ path: String) -> String {
        #"{"version":"2.0","rawPath":"\#(path)","requestContext":{"http":{"method":"POST"}}}"#
    }

    @Test func aStreamStartedBeforeTheAnswerCarriesALaterFailureAsItsPreludeStatus() async throws {
        var router = Router<any APIRouteHandler>()
        try router.add("POST", "/fail", StartingHandler())
        try router.add("POST", "/stream", StartingHandler())
        let client = FakeRuntimeAPIClient([
            invocation("r1", body: Self.event("/fail")), invocation("r2", body: Self.event("/stream")),
        ])
        _ = await LambdaRunLoop(client: client, handler: APIGatewayLambdaHandler(router: router), logger: logger).run()
        let posts = client.posts
        #expect(posts.count == 4)
        #expect(posts.first == .started(requestID: "r1", contentType: StreamedResponse.httpIntegrationContentType))
        // Not a buffered API Gateway answer: the started POST carries the 502 and its JSON body.
        guard posts.count == 4, case .streamed("r1", _, let chunks, .finished) = posts[1], chunks.count == 2 else {
            Issue.record("the failure was not streamed through the started POST: \(posts)")
            return
        }
        let prelude = try JSONValue.parse(Array(chunks[0].dropLast(8)))
        #expect(prelude["statusCode"]?.intValue == 502)
        #expect(chunks[1] == Array(#"{"error":"upstream_unavailable"}"#.utf8))
        #expect(posts[2] == .started(requestID: "r2", contentType: StreamedResponse.httpIntegrationContentType))
        guard case .streamed("r2", _, let streamed, .finished) = posts[3] else {
            Issue.record("the stream did not go through the started POST: \(posts)")
            return
        }
        #expect(streamed.last == Array("data: x\n\n".utf8))
    }

    @Test func aHandlerThatStartsItsStreamThenThrowsOrAnswersBufferedEndsItWithTrailers() async throws {
        struct Throwing: LambdaHandler {
            struct Failure: Error {}
            func handle(_ event: [UInt8], context: InvocationContext) async throws -> [UInt8] {
                StreamStart.current?.start()
                if event == Array("throw".utf8) { throw Failure() }
                return event
            }
        }
        let client = FakeRuntimeAPIClient([invocation("r1", body: "throw"), invocation("r2", body: "buffered")])
        _ = await LambdaRunLoop(client: client, handler: Throwing(), logger: logger).run()
        let type = StreamedResponse.httpIntegrationContentType
        #expect(
            client.posts == [
                .started(requestID: "r1", contentType: type),
                .streamed(
                    requestID: "r1",
                    contentType: type,
                    chunks: [],
                    completion: .failed(FunctionError(type: "Failure", message: "handler failed"))
                ),
                .started(requestID: "r2", contentType: type),
                .streamed(
                    requestID: "r2",
                    contentType: type,
                    chunks: [],
                    completion: .failed(
                        FunctionError(type: "Runtime.BufferedAfterStreamStart", message: "handler failed")
                    )
                ),
            ]
        )
    }
}
