import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import Glibc
import HTTPClient
import TestSupport
import Testing
import WireContract

let bootstrapDynamoDBEndpoint = LocalDynamoDB.endpoint

/// The real `bootstrap` process against the local Runtime API (local-harness/lambda_harness.py), with
/// its table on the moto server `make test` starts.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct BootstrapTests {
    static let dynamoDBEndpoint = bootstrapDynamoDBEndpoint
    static let table = "attestgate-bootstrap-test"

    /// Creates the table once for the suite (an existing table is fine); awaited, never waited for on a
    /// semaphore, so no thread of the cooperative pool blocks on it.
    static let tableReady = Task {
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": dynamoDBEndpoint ?? "",
        ])
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(environment),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        _ = try? await client.createTable(Table(name: table), deadline: .after(.seconds(10)))
    }

    static let deviceID = "7d444840-9dc0-11d1-b245-5ffdce74fad2"
    static let key = "test-upstream-key-0123"

    /// A fake upstream AI API (in this test process) and the key file bootstrap reads.
    struct Upstream {
        let server: LoopbackHTTPServer
        let keyFile: String

        init(_ reply: @escaping @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply) throws {
            server = try LoopbackHTTPServer(respond: reply)
            keyFile = TestFiles.path("upstream-key-\(server.port)")
            try Data((BootstrapTests.key + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        }
    }

    static func environment(_ upstream: Upstream, _ extra: [String: String] = [:]) async -> [String: String] {
        _ = await tableReady.result
        var env = [
            "ATTESTGATE_ENV": "development", "TABLE_NAME": table, "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": dynamoDBEndpoint ?? "", "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "GATE_MODE": "off", "UPSTREAM_URL": upstream.server.baseURL, "UPSTREAM_API_KEY_FILE": upstream.keyFile,
            "LOG_LEVEL": "debug",
        ]
        for (key, value) in extra { env[key] = value }
        return env
    }

    static func echoUpstream() throws -> Upstream {
        try Upstream { request in
            .respond(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: Array(#"{"answer":"ok"}"#.utf8)
            )
        }
    }

    @Test func httpV2EventIsRoutedToTheUpstream() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream))
        let response = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [
                HTTPHeader(WireHeader.deviceID.name, Self.deviceID), HTTPHeader("Content-Type", "application/json"),
            ],
            body: #"{"prompt":"hi"}"#
        )
        #expect(response.status == 200)
        #expect(response.body == Array(#"{"answer":"ok"}"#.utf8))
        let received = try #require(upstream.server.requests.first)
        #expect(received.path == "/generate")
        #expect(received.header("authorization") == "Bearer \(Self.key)")
        #expect(received.body == Array(#"{"prompt":"hi"}"#.utf8))
        // Every line the invocation logged carries its request id.
        let logs = try await harness.get("/logs").arrayValue ?? []
        let lines = logs.compactMap { $0["line"]?.stringValue }.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        #expect(lines.allSatisfy { $0["function_request_id"] != nil || $0["harness"] != nil })
        // Powertools' keys, as Logs Insights queries and dashboards built for them expect (docs/operations.md).
        let decision = try #require(lines.first { $0["logger"] == .string("attestgate.decision") })
        #expect(decision["level"] == .string("INFO") && decision["message"] == .string("decision"))
        #expect(decision["service"] == .string("attestgate") && decision["cold_start"] == .bool(true))
        #expect(decision["function_name"]?.stringValue?.isEmpty == false)
        #expect(decision["xray_trace_id"]?.stringValue?.hasPrefix("1-") == true)
        let timestamp = decision["timestamp"]?.stringValue ?? ""
        #expect(timestamp.utf8.count == 24 && timestamp.hasSuffix("Z") && timestamp.dropFirst(10).hasPrefix("T"))
    }

    @Test func signedInCallersComeThroughTheHarnessClaimsHeader() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream))
        // No X-Device-ID: a guest is refused, a caller with a JWT `sub` (API Gateway's authorizer, here
        // the harness's X-Harness-JWT-Claims) is served and metered on the user.
        let guest = try await harness.request("POST", "/v1/generate", body: "{}")
        #expect(guest.status == 400)
        #expect(guest.body == Array(#"{"error":"invalid_device_id"}"#.utf8))
        let claims = #"{"sub":"user-\#(UUID().uuidString.lowercased())"}"#
        let user = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader("X-Harness-JWT-Claims", claims)],
            body: "{}"
        )
        #expect(user.status == 200)
        #expect(user.body == Array(#"{"answer":"ok"}"#.utf8))
    }

    @Test func pathParametersAndUnknownRoutes() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream))
        let headers = [HTTPHeader(WireHeader.deviceID.name, Self.deviceID)]
        let tutor = try await harness.request("POST", "/v1/tutor/deck-1/card-2", headers: headers, body: "{}")
        #expect(tutor.status == 200)
        #expect(upstream.server.requests.last?.path == "/tutor")
        let missing = try await harness.request("POST", "/v1/unknown", headers: headers)
        #expect(missing.status == 404)
        #expect(missing.body == Array(#"{"error":"not_found"}"#.utf8))
        let wrongMethod = try await harness.request("GET", "/v1/generate", headers: headers)
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("allow") == "POST")
        // Methods http.server has no handler for reach the router too (make api-fuzz found 501s here).
        for method in ["TRACE", "QUERY"] {
            let other = try await harness.request(method, "/v1/generate", headers: headers)
            #expect(other.status == 405, "\(method)")
            #expect(other.header("allow") == "POST")
            #expect(other.body == Array(#"{"error":"method_not_allowed"}"#.utf8))
        }
    }

    @Test(arguments: [
        "lambda/apigw-http-v1.0-request.aws-docs.json", "lambda/apigw-rest-v1.0-request.aws-lambda-go.json",
    ])
    func v1AndRESTEventsAnswerInTheirShape(fixture: String) async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream))
        let event = try JSONValue.parse(Fixture.bytes(fixture))
            .setting("httpMethod", .string("POST"))
            .setting("path", .string("/v1/generate"))
            .setting("headers", .object(["X-Device-Id": .string(Self.deviceID)]))
            .setting("multiValueHeaders", .object(["X-Device-Id": .array([.string(Self.deviceID)])]))
        let result = try await harness.invoke(event.serializedBytes)
        #expect(result["outcome"] == .string("response"))
        let response = try JSONValue.parse(Array(try #require(result["payload"]?.stringValue).utf8))
        #expect(response["statusCode"] == .int(200))
        #expect(response["multiValueHeaders"] != nil)
        #expect(response["body"] == .string(#"{"answer":"ok"}"#))
    }

    @Test func malformedEventIsA400NeverAnError() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream))
        for event in ["{not json", #"{"hello":"world"}"#] {
            let result = try await harness.invoke(Array(event.utf8))
            #expect(result["outcome"] == .string("response"))
            let response = try JSONValue.parse(Array(try #require(result["payload"]?.stringValue).utf8))
            #expect(response["statusCode"] == .int(400))
            #expect(response["body"] == .string(#"{"error":"invalid_request"}"#))
        }
        #expect(upstream.server.requests.isEmpty)
    }

    @Test func aThrowingHandlerIsReportedAndTheNextEventIsServed() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: await Self.environment(upstream, ["_HANDLER": "diagnostics"]))
        let failed = try await harness.invoke(Array(#"{"diagnostics":"throw"}"#.utf8))
        #expect(failed["outcome"] == .string("error"))
        #expect(failed["errorType"] == .string("RequestedFailure"))
        let served = try await harness.invoke(Array(#"{"n":2}"#.utf8))
        #expect(served["outcome"] == .string("response"))
        #expect(served["payload"] == .string(#"{"n":2}"#))
        // The same process served both: it neither exited nor was restarted.
        let instance = try #require(try await harness.get("/instances").arrayValue?.first)
        #expect(instance["running"] == .bool(true))
        #expect(instance["restarts"] == .int(0))
        #expect(instance["exitCodes"] == .array([]))
    }

    @Test func aMissedDeadlineDiscardsTheInstanceAndANewOneServes() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(
            environment: await Self.environment(upstream, ["_HANDLER": "diagnostics"]),
            deadlineMs: 800
        )
        let late = try await harness.invoke(Array(#"{"diagnostics":"sleep","ms":5000}"#.utf8))
        #expect(late["outcome"] == .string("timeout"))
        // Like Lambda, the harness discards the sandbox and starts a fresh one, which serves the next event.
        let next = try await harness.invoke(Array(#"{"diagnostics":"sleep","ms":10}"#.utf8))
        #expect(next["outcome"] == .string("response"))
        let instance = try #require(try await harness.get("/instances").arrayValue?.first)
        #expect(instance["restarts"] == .int(1))
        #expect(instance["running"] == .bool(true))
    }

    @Test func diagnosticsHandlerIsRefusedInProduction() async throws {
        let upstream = try Self.echoUpstream()
        let env = await Self.environment(upstream, ["_HANDLER": "diagnostics", "ATTESTGATE_ENV": "production"])
        let harness = try await LocalHarness(environment: env)
        let exited = try await harness.eventually {
            try await harness.get("/instances").arrayValue?.first?["exitCodes"]?.arrayValue?.isEmpty == false
        }
        #expect(exited)
        let errors = try await harness.get("/init-errors").arrayValue ?? []
        #expect(errors.first?["body"]?.stringValue?.contains("startup.diagnostics_in_production") == true)
    }

    @Test func initFailureIsPostedAndTheProcessExitsNonZero() async throws {
        let upstream = try Self.echoUpstream()
        var env = await Self.environment(
            upstream,
            ["APP_ATTEST_ENVIRONMENT": "development", "ATTESTGATE_ENV": "production"]
        )
        env["TABLE_NAME"] = nil
        let harness = try await LocalHarness(environment: env)
        let exited = try await harness.eventually {
            try await harness.get("/instances").arrayValue?.first?["exitCodes"]?.arrayValue?.isEmpty == false
        }
        #expect(exited)
        let instance = try #require(try await harness.get("/instances").arrayValue?.first)
        let code = try #require(instance["exitCodes"]?.arrayValue?.first?.intValue)
        #expect(code != 0)
        let error = try #require(try await harness.get("/init-errors").arrayValue?.first)
        #expect(error["errorType"] == .string("AttestGate.ConfigurationError"))
        let body = try JSONValue.parse(Array(try #require(error["body"]?.stringValue).utf8))
        let message = try #require(body["errorMessage"]?.stringValue)
        #expect(message.contains("config.missing_setting TABLE_NAME"))
        #expect(message.contains("config.development_app_attest_in_production APP_ATTEST_ENVIRONMENT"))
        #expect(body["errorType"] == .string("AttestGate.ConfigurationError"))
    }

    @Test func anOutboundCallIsCutAtTheDeadlineAndAnswers504() async throws {
        let upstream = try Upstream { _ in .hang(seconds: 30) }
        defer { upstream.server.stop() }
        let harness = try await LocalHarness(environment: await Self.environment(upstream), deadlineMs: 1500)
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader(WireHeader.deviceID.name, Self.deviceID)],
            body: "{}"
        )
        let elapsed = clock.now - start
        // Our own answer (not the harness's deadline 504), before the invocation's deadline.
        #expect(response.status == 504)
        #expect(response.body == Array(#"{"error":"upstream_unavailable"}"#.utf8))
        // It waited for the upstream until the deadline's margin (not an early failure); the body above
        // shows the answer came from bootstrap, before the harness's own deadline.
        #expect(elapsed > .milliseconds(800))
        let invocations = try await harness.get("/invocations").arrayValue ?? []
        #expect(invocations.first?["outcome"] == .string("response"))
    }

    /// Guests cannot starve signed-in users: each has its own function (here its own pool of bootstraps)
    /// with its own reserved concurrency. Two guest calls to a hanging upstream fill the guest pool, and a
    /// third is throttled as Lambda throttles past reserved concurrency; a signed-in call still answers
    /// 200 from its own pool.
    @Test func aSaturatedGuestPoolDoesNotStarveSignedInCallers() async throws {
        let upstream = try Upstream { request in
            guard !String(decoding: request.body, as: UTF8.self).contains("hang") else { return .hang(seconds: 30) }
            return .respond(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: Array(#"{"answer":"ok"}"#.utf8)
            )
        }
        defer { upstream.server.stop() }
        let harness = try await LocalHarness(
            environment: Self.environment(upstream),
            deadlineMs: 6000,
            instances: 2,
            signedInInstances: 1,
            throttle: true
        )
        @Sendable func guest() async throws -> HTTPResponse {
            try await harness.request(
                "POST",
                "/v1/generate",
                headers: [HTTPHeader(WireHeader.deviceID.name, UUID().uuidString.lowercased())],
                body: #"{"hang":true}"#
            )
        }
        async let first = guest()
        async let second = guest()
        // Both guest instances are inside the hanging upstream call.
        #expect(try await harness.eventually(seconds: 20) { upstream.server.requests.count == 2 })
        let third = try await guest()
        #expect(third.status == 500)  // API Gateway's answer when Lambda throttles the invocation
        let claims = #"{"sub":"user-\#(UUID().uuidString.lowercased())"}"#
        let user = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader("X-Harness-JWT-Claims", claims)],
            body: "{}"
        )
        #expect(user.status == 200)
        #expect(user.body == Array(#"{"answer":"ok"}"#.utf8))
        let guests = [try await first, try await second]
        #expect(guests.map(\.status) == [504, 504])
        let invocations = try await harness.get("/invocations").arrayValue ?? []
        let outcomes = invocations.map { "\($0["pool"]?.stringValue ?? "?") \($0["outcome"]?.stringValue ?? "?")" }
        #expect(outcomes.sorted() == ["guest response", "guest response", "guest throttled", "signed_in response"])
    }

    /// Decision lines carry the metrics every alarm reads: `LOG_LEVEL=error` mutes info lines, not them.
    @Test func decisionLinesAreWrittenAtLogLevelError() async throws {
        let upstream = try Self.echoUpstream()
        let harness = try await LocalHarness(environment: Self.environment(upstream, ["LOG_LEVEL": "error"]))
        let response = try await harness.request(
            "POST",
            "/v1/generate",
            headers: [HTTPHeader(WireHeader.deviceID.name, UUID().uuidString.lowercased())],
            body: "{}"
        )
        #expect(response.status == 200)
        let logs = try await harness.get("/logs").arrayValue ?? []
        let lines = logs.compactMap { $0["line"]?.stringValue }.compactMap { try? JSONValue.parse(Array($0.utf8)) }
        let decisions = lines.filter { $0["logger"] == .string("attestgate.decision") }
        #expect(decisions.count == 1)
        #expect(decisions.first?["status"] == .int(200))
        #expect(!lines.contains { $0["level"] == .string("INFO") && $0["logger"] != .string("attestgate.decision") })
    }
}
