import AWSJSON
import AttestCore
import DynamoDB
import HTTPClient
import Synchronization
import TestSupport
import Testing

/// A fake DynamoDB on 127.0.0.1 (real sockets, the real libcurl transport) proves the retry behaviour.
@Suite struct LoopbackRetryTests {
    static let item = #"{"Item":{"PK":{"S":"DEVICE#1"},"SK":{"S":"ATTEST_KEY"},"counter":{"N":"7"}}}"#

    static func ok(_ body: String = item) -> LoopbackHTTPServer.Reply {
        let bytes = Array(body.utf8)
        return .respond(status: 200, headers: [("x-amz-crc32", String(CRC32.checksum(bytes)))], body: bytes)
    }

    static func error(_ status: Int, _ code: String, extra: String = "") -> LoopbackHTTPServer.Reply {
        let bytes = Array(#"{"__type":"com.amazonaws.dynamodb.v20120810#\#(code)","message":"m"\#(extra)}"#.utf8)
        return .respond(status: status, headers: [("x-amz-crc32", String(CRC32.checksum(bytes)))], body: bytes)
    }

    /// A server that answers the n-th request (0-based) with `script[n]`, repeating the last entry.
    static func server(_ script: [LoopbackHTTPServer.Reply]) throws -> LoopbackHTTPServer {
        let next = Atomic<Int>(0)
        return try LoopbackHTTPServer { _ in
            let index = next.add(1, ordering: .sequentiallyConsistent).oldValue
            return script[min(index, script.count - 1)]
        }
    }

    func getItem(_ server: LoopbackHTTPServer, deadline: Deadline = .after(.seconds(60))) async throws -> Item? {
        let client = Fixture.client(CurlTransport(), endpoint: server.baseURL)
        return try await client.getItem(Fixture.table, key: Fixture.key("DEVICE#1", "ATTEST_KEY"), deadline: deadline)
    }

    @Test func throttlingThenSuccess() async throws {
        let server = try Self.server([Self.error(400, "ProvisionedThroughputExceededException"), Self.ok()])
        #expect(try await getItem(server)?["counter"] == .n("7"))
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.header("X-Amz-Target") == "DynamoDB_20120810.GetItem" })
        #expect(server.requests.allSatisfy { $0.header("Accept-Encoding") == "identity" })
    }

    @Test func serverErrorThenSuccess() async throws {
        let server = try Self.server([Self.error(500, "InternalServerError"), Self.ok()])
        #expect(try await getItem(server)?["counter"] == .n("7"))
        #expect(server.requests.count == 2)
    }

    @Test func crcMismatchThenSuccess() async throws {
        let corrupted = LoopbackHTTPServer.Reply.respond(
            status: 200,
            headers: [("x-amz-crc32", "12345")],
            body: Array(Self.item.utf8)
        )
        let server = try Self.server([corrupted, Self.ok()])
        #expect(try await getItem(server)?["counter"] == .n("7"))
        #expect(server.requests.count == 2)
    }

    @Test func lostConnectionThenSuccess() async throws {
        let server = try Self.server([.close, Self.ok()])
        #expect(try await getItem(server)?["counter"] == .n("7"))
        #expect(server.requests.count == 2)
    }

    @Test func giveUpAfterThreeAttempts() async throws {
        let server = try Self.server([Self.error(503, "ServiceUnavailable")])
        await #expect(throws: DynamoDBError(DynamoDBError.Reason(AWSError.Reason.serverError))) {
            try await getItem(server)
        }
        #expect(server.requests.count == 3)
    }

    @Test func conditionalFailureIsNeverRetried() async throws {
        let old = #","Item":{"PK":{"S":"DEVICE#1"},"SK":{"S":"ATTEST_KEY"},"counter":{"N":"9"}}"#
        let server = try Self.server([Self.error(400, "ConditionalCheckFailedException", extra: old), Self.ok("{}")])
        let client = Fixture.client(CurlTransport(), endpoint: server.baseURL)
        let request = UpdateItem(
            table: Fixture.table,
            key: Fixture.key("DEVICE#1", "ATTEST_KEY"),
            update: UpdateExpression(set: ["\(name: "counter") = \(value: .number(8))"]),
            condition: "\(name: "counter") < \(value: .number(8))"
        )
        do {
            try await client.updateItem(request, deadline: .after(.seconds(60)))
            Issue.record("the update should have failed its condition")
        } catch {
            #expect(error.reason == .conditionalCheckFailed)
            #expect(error.code == "ConditionalCheckFailedException")
            #expect(error.oldItem?["counter"] == .n("9"))
        }
        #expect(server.requests.count == 1)
    }

    @Test func deadlineIsRespected() async throws {
        // The server never answers and one attempt may take 20 s, but the call has 1 s: it must end near
        // 1 s (the bound leaves room for a loaded machine), far from the 20 s an attempt would wait.
        let server = try Self.server([.hang(seconds: 30)])
        let client = DynamoDBClient(
            configuration: Fixture.configuration(endpoint: server.baseURL).with(attemptTimeout: .seconds(20)),
            transport: CurlTransport(),
            random: ConstantRandom()
        )
        let start = ContinuousClock.now
        await #expect(throws: DynamoDBError(.deadlineExceeded)) {
            try await client.getItem(
                Fixture.table,
                key: Fixture.key("DEVICE#1", "ATTEST_KEY"),
                deadline: .after(.seconds(1))
            )
        }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed < .seconds(8), "waited \(elapsed) after a 1 s deadline")
        #expect(elapsed >= .milliseconds(900))
        #expect(server.requests.count == 1)
    }

    @Test func attemptTimeoutThenSuccess() async throws {
        let server = try Self.server([.hang(seconds: 2), Self.ok()])
        let client = DynamoDBClient(
            configuration: Fixture.configuration(endpoint: server.baseURL).with(attemptTimeout: .milliseconds(300)),
            transport: CurlTransport(),
            random: ConstantRandom()
        )
        let item = try await client.getItem(
            Fixture.table,
            key: Fixture.key("DEVICE#1", "ATTEST_KEY"),
            deadline: .after(.seconds(60))
        )
        #expect(item?["counter"] == .n("7"))
        #expect(server.requests.count == 2)
    }
}
