import AWSJSON
import AttestCore
import HTTPClient
import SecretsManager
import SigV4
import TestSupport
import Testing

@Suite struct AWSJSONClientTests {
    let input: JSONValue = .object(["TableName": .string("t")])

    @Test func requestIsSignedLikeBotocore() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok("{}"))])
        _ = try await Fixture.client(transport).call("DescribeTable", input, deadline: .after(.seconds(60)))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == "https://dynamodb.us-east-1.amazonaws.com/")
        #expect(request.body == Array(#"{"TableName":"t"}"#.utf8))
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }) { first, _ in first }
        #expect(headers["content-type"] == "application/x-amz-json-1.0")
        #expect(headers["x-amz-target"] == "DynamoDB_20120810.DescribeTable")
        #expect(headers["host"] == "dynamodb.us-east-1.amazonaws.com")
        #expect(headers["x-amz-date"] == "20150830T123600Z")
        #expect(headers["x-amz-security-token"] == "SESSIONTOKEN")
        #expect(headers["accept-encoding"] == "identity")
        // botocore 1.43 SigV4Auth over the same request, clock frozen at 2015-08-30T12:36:00Z.
        #expect(
            headers["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/dynamodb/aws4_request, "
                + "SignedHeaders=content-type;host;x-amz-date;x-amz-security-token;x-amz-target, "
                + "Signature=93b4d0f300c8a1f915e31874df8274a3369163c99fc91ca968a64de2971c32a6"
        )
        #expect(request.timeout! <= .seconds(3))
    }

    @Test func throttlingThenSuccess() async throws {
        let transport = ScriptedTransport([
            .respond(Fixture.error(400, "ProvisionedThroughputExceededException")), .respond(Fixture.ok(#"{"a":1}"#)),
        ])
        let client = Fixture.client(transport)
        let output = try await client.call("GetItem", input, deadline: .after(.seconds(60)))
        #expect(output["a"]?.intValue == 1)
        #expect(transport.requests.count == 2)
        #expect(client.retryQuotaAvailable == RetryQuota.capacity)  // the success paid the retry back
    }

    @Test func serverErrorsAreRetriedThreeTimesInAll() async {
        let transport = ScriptedTransport([.respond(Fixture.error(500, "InternalServerError"))])
        let client = Fixture.client(transport)
        await #expect(throws: AWSError(.serverError)) {
            try await client.call("GetItem", input, deadline: .after(.seconds(60)))
        }
        #expect(transport.requests.count == 3)
        #expect(client.retryQuotaAvailable == RetryQuota.capacity - 2 * RetryQuota.retryCost)
    }

    @Test(arguments: ["ConditionalCheckFailedException", "ValidationException", "TransactionConflictException"])
    func neverRetried(_ code: String) async {
        let transport = ScriptedTransport([.respond(Fixture.error(400, code)), .respond(Fixture.ok("{}"))])
        await #expect(throws: AWSError.self) {
            try await Fixture.client(transport).call("UpdateItem", input, deadline: .after(.seconds(60)))
        }
        #expect(transport.requests.count == 1)
    }

    @Test func crcMismatchIsRetried() async throws {
        var corrupted = Fixture.ok(#"{"a":1}"#)
        corrupted.body = Array(#"{"a":2}"#.utf8)
        let transport = ScriptedTransport([.respond(corrupted), .respond(Fixture.ok(#"{"a":1}"#))])
        let output = try await Fixture.client(transport).call("GetItem", input, deadline: .after(.seconds(60)))
        #expect(output["a"]?.intValue == 1)
        #expect(transport.requests.count == 2)
    }

    @Test func timeoutsAndConnectionErrorsAreRetried() async throws {
        let transport = ScriptedTransport([
            .fail(HTTPError(.timeout)), .fail(HTTPError(.connectionReset)), .respond(Fixture.ok("{}")),
        ])
        let client = Fixture.client(transport)
        _ = try await client.call("GetItem", input, deadline: .after(.seconds(60)))
        #expect(transport.requests.count == 3)
        #expect(client.retryQuotaAvailable == RetryQuota.capacity - RetryQuota.timeoutRetryCost)
    }

    @Test func anExpiredDeadlineSendsNothing() async {
        let transport = ScriptedTransport([.respond(Fixture.ok("{}"))])
        await #expect(throws: AWSError(.deadlineExceeded)) {
            try await Fixture.client(transport).call("GetItem", input, deadline: .after(.zero))
        }
        #expect(transport.requests.count == 0)
    }

    @Test func attemptTimeoutIsCappedByTheDeadline() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok("{}"))])
        // Below the 3 s attempt timeout, with room for a loaded machine to answer a scripted transport.
        _ = try await Fixture.client(transport).call("GetItem", input, deadline: .after(.milliseconds(2500)))
        #expect(try #require(transport.requests.first?.timeout) <= .milliseconds(2500))
    }

    /// A transport whose own timer fires (an attempt's timeout capped by the deadline) just before the
    /// deadline race would: the call still ends as `aws.deadline_exceeded`, never as a plain timeout.
    final class TimesOutAtItsTimeout: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            try await Task.sleep(for: (request.timeout ?? .zero) - .milliseconds(15))
            throw HTTPError(.timeout, detail: "Operation timed out")
        }
    }

    @Test func aTimeoutAtTheDeadlineIsTheDeadline() async {
        let client = Fixture.client(TimesOutAtItsTimeout())
        await #expect(throws: AWSError(.deadlineExceeded)) {
            try await client.call("GetItem", input, deadline: .after(.milliseconds(300)))
        }
    }

    @Test func retryAfterBeyondTheDeadlineEndsTheCall() async {
        let throttled = Fixture.error(400, "ThrottlingException", headers: [HTTPHeader("Retry-After", "30")])
        let transport = ScriptedTransport([.respond(throttled), .respond(Fixture.ok("{}"))])
        let start = ContinuousClock.now
        // Retry-After (30 s) is past the deadline (20 s): the call ends with the service's error at once
        // instead of sleeping until the deadline.
        await #expect(throws: AWSError(.throttled)) {
            try await Fixture.client(transport).call("GetItem", input, deadline: .after(.seconds(20)))
        }
        #expect(transport.requests.count == 1)
        #expect(ContinuousClock.now - start < .seconds(15))
    }

    @Test func retryAfterIsHonoured() async throws {
        let throttled = Fixture.error(400, "ThrottlingException", headers: [HTTPHeader("Retry-After", "1")])
        let transport = ScriptedTransport([.respond(throttled), .respond(Fixture.ok("{}"))])
        let start = ContinuousClock.now
        _ = try await Fixture.client(transport).call("GetItem", input, deadline: .after(.seconds(60)))
        #expect(ContinuousClock.now - start >= .seconds(1))
        #expect(transport.requests.count == 2)
    }

    @Test func aResendingTransportSendsALandedRequestAgain() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok(#"{"n":1}"#)), .respond(Fixture.ok(#"{"n":2}"#))])
        let hook = ResendingTransport(transport, resending: ["UpdateItem"])
        let client = Fixture.client(hook, Fixture.dynamoDB())
        let output = try await client.call("UpdateItem", input, deadline: .after(.seconds(60)))
        #expect(output["n"]?.intValue == 2)  // the first answer was dropped, as if lost
        #expect(transport.requests.count == 2)
        #expect(transport.requests[0].body == transport.requests[1].body)
        #expect(hook.resent == 1)
        // Other operations are untouched.
        _ = try await client.call("GetItem", input, deadline: .after(.seconds(60)))
        #expect(transport.requests.count == 3)
        #expect(hook.resent == 1)
    }

    @Test func malformedSuccessBodyIsAnError() async {
        let transport = ScriptedTransport([.respond(Fixture.ok("[1,2]"))])
        await #expect(throws: AWSError(.malformedResponse)) {
            try await Fixture.client(transport).call("GetItem", input, deadline: .after(.seconds(60)))
        }
    }

    @Test func environmentSettings() throws {
        let environment = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_SESSION_TOKEN": "token",
            "AWS_REGION": "eu-west-1",
        ])
        #expect(environment.credentials.sessionToken == "token")
        #expect(environment.dynamoDBURL == "https://dynamodb.eu-west-1.amazonaws.com")
        #expect(!"\(environment.credentials)".contains("secret"))
        let local = try AWSEnvironment([
            "AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_REGION": "us-east-1",
            "DYNAMODB_ENDPOINT": "http://127.0.0.1:5000",
        ])
        #expect(local.credentials.sessionToken == nil)
        #expect(local.dynamoDBURL == "http://127.0.0.1:5000")
        #expect(throws: AWSError(.configuration)) { try AWSEnvironment(["AWS_ACCESS_KEY_ID": "a"]) }
    }
}

@Suite struct SecretsManagerClientTests {
    func client(_ transport: ScriptedTransport) -> SecretsManagerClient {
        SecretsManagerClient(
            credentials: Fixture.credentials,
            region: "us-east-1",
            transport: transport,
            clock: FixedClock(Fixture.date),
            random: ConstantRandom()
        )
    }

    @Test func secretString() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok(#"{"Name":"n","SecretString":"{\"k\":1}"}"#))])
        let value = try await client(transport).getSecretValue(
            "arn:aws:secretsmanager:x",
            deadline: .after(.seconds(60))
        )
        #expect(value == .string(#"{"k":1}"#))
        let request = try #require(transport.requests.first)
        #expect(request.url == "https://secretsmanager.us-east-1.amazonaws.com/")
        #expect(request.headers.contains(HTTPHeader("Content-Type", "application/x-amz-json-1.1")))
        #expect(request.headers.contains(HTTPHeader("X-Amz-Target", "secretsmanager.GetSecretValue")))
        #expect(request.body == Array(#"{"SecretId":"arn:aws:secretsmanager:x"}"#.utf8))
        #expect(!"\(value)".contains("k"))
    }

    @Test func secretBinary() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok(#"{"SecretBinary":"AAEC"}"#))])
        let value = try await client(transport).getSecretValue("s", deadline: .after(.seconds(60)))
        #expect(value == .binary([0, 1, 2]))
    }

    @Test func missingSecret() async {
        let body =
            #"{"__type":"ResourceNotFoundException","Message":"Secrets Manager can't find the specified secret."}"#
        let transport = ScriptedTransport([.respond(HTTPResponse(status: 400, body: Array(body.utf8)))])
        await #expect(throws: AWSError(.resourceNotFound)) {
            try await client(transport).getSecretValue("s", deadline: .after(.seconds(60)))
        }
        #expect(transport.requests.count == 1)
    }
}
