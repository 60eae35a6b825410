import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import Glibc
import HTTPClient
import TestSupport
import Testing

/// `local-harness/moto_server.py` in a child process of its own, with DynamoDB's contention rules
/// (`local-harness/ddb_standin.py`): transactions hold their items, single writes on a held item are refused,
/// overlapping transactions are cancelled, each item has its write throughput. Its own table, so the
/// ceiling rows hold only this test's calls.
final class DynamoStandInProcess: Sendable {
    let process: ChildProcess
    let endpoint: String
    let client: DynamoDBClient
    let table = Table(name: "contention-\(UInt32.random(in: 0...UInt32.max))")

    init(_ flags: [String]) async throws {
        let port = try Self.freePort()
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        process = try ChildProcess(
            [
                "python3", LocalHarness.packageRoot + "/local-harness/moto_server.py", "-H", "127.0.0.1", "-p",
                String(port),
            ]
                + flags,
            environment: ["PATH": path, "LANG": "C.UTF-8"]
        )
        endpoint = "http://127.0.0.1:\(port)"
        client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(
                try AWSEnvironment([
                    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                    "DYNAMODB_ENDPOINT": endpoint,
                ])
            ),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        let transport = CurlTransport()
        var up = false
        for _ in 0..<300 where !up {
            let answer = try? await transport.send(HTTPRequest(method: "GET", url: endpoint + "/moto-api/"))
            up = answer?.status == 200
            if !up { try await Task.sleep(for: .milliseconds(100)) }
        }
        try #require(up, "the DynamoDB stand-in did not start")
        _ = try await client.createTable(table, deadline: .after(.seconds(10)))
    }

    deinit { process.terminate() }

    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The stand-in's counters (`GET /standin/stats`).
    func stats() async throws -> JSONValue {
        let answer = try await CurlTransport().send(HTTPRequest(method: "GET", url: endpoint + "/standin/stats"))
        return try JSONValue.parse(answer.body)
    }

    /// Heats every item whose key contains `pattern`: each write to it is refused for throughput.
    func heat(_ pattern: String) async throws {
        let body = JSONValue.object(["pattern": .string(pattern)]).serializedBytes
        let answer = try await CurlTransport().send(
            HTTPRequest(method: "POST", url: endpoint + "/standin/hot", body: body)
        )
        try #require(answer.status == 200)
    }

    /// Today's ceiling summed over its shards: `calls` and `cost` (micro-USD).
    func ceiling(shards: Int) async throws -> (calls: Int64, cost: Int64) {
        let day = String(Date().formatted(.iso8601.year().month().day().dateSeparator(.dash)))
        var total: (calls: Int64, cost: Int64) = (0, 0)
        for shard in 0..<shards {
            let key: Item = [
                "PK": .s(shard == 0 ? "AI_BUDGET#\(day)" : "AI_BUDGET#\(day)#\(shard)"), "SK": .s("TOTAL"),
            ]
            let item = try await client.getItem(table, key: key, deadline: .after(.seconds(5)))
            total.calls += item?["calls"]?.intValue ?? 0
            total.cost += item?["cost"]?.intValue ?? 0
        }
        return total
    }
}

/// Layer 3 under contention (docs/gate.md, "The ceiling under contention"): the real `bootstrap`, as many
/// instances as calls in flight, a priced `openai-chat` route whose money budget has room, a provider that
/// answers in 150 ms with known usage, and DynamoDB's contention rules. Every call is answered, and the
/// ceiling equals the reported usage times the prices exactly: no call refused because of our own writes,
/// no settle lost.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct ContentionBootstrapTests {
    /// 10 input and 20 output tokens at 1 and 2 micro-USD each.
    static let callCost: Int64 = 10 * 1 + 20 * 2
    static let route =
        #"[{"method":"POST","path":"/v1/chat","feature":"chat","mode":"monitor","#
        + #""upstreamPath":"/v1/chat/completions","dialect":"openai-chat","models":["fake"],"maxOutputTokens":100,"#
        + #""prices":{"fake":{"inputPerMTok":1,"outputPerMTok":2}},"#
        + #""allowance":{"firstDay":1000,"laterDays":1000}}]"#

    struct Outcome {
        var statuses: [Int: Int] = [:]
        var calls: Int64 = 0
        var cost: Int64 = 0
        var standIn: JSONValue = .null
    }

    /// `total` calls, `inFlight` at a time, each from its own device, through `inFlight` instances.
    static func run(inFlight: Int, total: Int, shards: Int, holdMs: Int = 25) async throws -> Outcome {
        let standIn = try await DynamoStandInProcess([
            "--txn-hold-ms", String(holdMs), "--latency-ms", "UpdateItem=4", "--latency-ms", "GetItem=3",
            "--latency-ms", "PutItem=4",
        ])
        let upstream = try BootstrapTests.Upstream { _ in
            let answer =
                #"{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","#
                + #""content":"fine"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":20,"#
                + #""total_tokens":30}}"#
            return .respondAfter(milliseconds: 150, status: 200, body: Array(answer.utf8))
        }
        let harness = try await LocalHarness(
            environment: [
                "ATTESTGATE_ENV": "development", "TABLE_NAME": standIn.table.name, "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": standIn.endpoint, "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "GATE_MODE": "monitor", "UPSTREAM_URL": upstream.server.baseURL,
                "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "warning", "ROUTES": route,
                "AI_DAILY_COST_CEILING_USD": "1000", "AI_DAILY_CALL_CEILING": "1000000",
                "AI_CEILING_SHARDS": String(shards),
            ],
            deadlineMs: 30_000,
            instances: inFlight
        )
        let body = #"{"model":"fake","messages":[{"role":"user","content":"Why is the sky blue?"}]}"#
        var outcome = Outcome()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            var started = 0
            var statuses: [Int] = []
            func start() {
                started += 1
                group.addTask {
                    let answer = try await harness.request(
                        "POST",
                        "/v1/chat",
                        headers: [HTTPHeader("X-Device-ID", UUID().uuidString.lowercased())],
                        body: body
                    )
                    return answer.status
                }
            }
            for _ in 0..<min(inFlight, total) { start() }
            while let status = try await group.next() {
                statuses.append(status)
                if started < total { start() }
            }
            return statuses
        }
        for status in statuses { outcome.statuses[status, default: 0] += 1 }
        (outcome.calls, outcome.cost) = try await standIn.ceiling(shards: shards)
        outcome.standIn = try await standIn.stats()
        return outcome
    }

    static func expectExact(_ outcome: Outcome, total: Int) {
        let summary =
            "statuses \(outcome.statuses), row calls \(outcome.calls) cost \(outcome.cost), stand-in \(outcome.standIn)"
        // Every call answered: none refused for a conflict or a throttle our own writes caused.
        #expect(outcome.statuses == [200: total], "\(summary)")
        // Every settle landed: the row holds the reported usage times the prices, no worst case left behind.
        #expect(outcome.calls == Int64(total), "\(summary)")
        #expect(outcome.cost == Int64(total) * callCost, "\(summary)")
    }

    @Test(arguments: [(8, 40), (32, 96), (64, 128)])
    func everyCallIsAnsweredAndEverySettleLandsWithOneShard(inFlight: Int, total: Int) async throws {
        let outcome = try await Self.run(inFlight: inFlight, total: total, shards: 1)
        Self.expectExact(outcome, total: total)
        // The stand-in did refuse writes: the calls were answered because the gate tried again, not because
        // nothing collided (a run with no conflict would prove nothing).
        let refused =
            (outcome.standIn["conflicts"]?.intValue ?? 0) + (outcome.standIn["cancelledConflict"]?.intValue ?? 0)
        #expect(refused > 0, "the stand-in refused nothing: \(outcome.standIn)")
    }

    @Test func everyCallIsAnsweredAndEverySettleLandsOverEightShards() async throws {
        let outcome = try await Self.run(inFlight: 64, total: 128, shards: 8)
        Self.expectExact(outcome, total: 128)
    }
}

/// The unproven pool (docs/gate.md, "The unproven pool") through the real `bootstrap`: 50 minted device IDs
/// with no proof, racing through four instances on an enforce route, get exactly the pool's budget.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct UnprovenPoolBootstrapTests {
    @Test func fiftyMintedIDsRacingThroughFourInstancesGetExactlyThePool() async throws {
        let standIn = try await DynamoStandInProcess([])
        let upstream = try BootstrapTests.echoUpstream()
        let route =
            #"[{"method":"POST","path":"/v1/generate","feature":"generation","mode":"enforce","#
            + #""upstreamPath":"/generate","allowance":{"firstDay":5,"laterDays":5},"#
            + #""unproven":{"allowance":{"firstDay":1,"laterDays":1}}}]"#
        let harness = try await LocalHarness(
            environment: [
                "ATTESTGATE_ENV": "development", "TABLE_NAME": standIn.table.name, "AWS_REGION": "us-east-1",
                "DYNAMODB_ENDPOINT": standIn.endpoint, "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing", "UPSTREAM_URL": upstream.server.baseURL,
                "UPSTREAM_API_KEY_FILE": upstream.keyFile, "LOG_LEVEL": "warning", "ROUTES": route,
                "APPLE_TEAM_ID": "TEAM123456", "APPLE_BUNDLE_IDS": "com.example.app",
                "AI_DAILY_CALL_CEILING": "1000", "AI_DAILY_UNPROVEN_CALL_CEILING": "9",
            ],
            deadlineMs: 10_000,
            instances: 4
        )
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await harness.request(
                        "POST",
                        "/v1/generate",
                        headers: [HTTPHeader("X-Device-ID", UUID().uuidString.lowercased())],
                        body: "{}"
                    ).status
                }
            }
            var statuses: [Int: Int] = [:]
            for try await status in group { statuses[status, default: 0] += 1 }
            return statuses
        }
        #expect(statuses == [200: 9, 503: 41])
        let day = String(Date().formatted(.iso8601.year().month().day().dateSeparator(.dash)))
        let pool = try await standIn.client.getItem(
            standIn.table,
            key: ["PK": .s("AI_UNPROVEN#\(day)"), "SK": .s("TOTAL")],
            deadline: .after(.seconds(5))
        )
        #expect(pool?["calls"]?.intValue == 9)
        #expect(try await standIn.ceiling(shards: 1).calls == 9)
        #expect(upstream.server.requests.count == 9)
    }
}
