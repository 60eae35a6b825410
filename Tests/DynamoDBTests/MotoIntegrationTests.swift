import AWSJSON
import AttestCore
import DynamoDB
import FoundationEssentials
import HTTPClient
import Synchronization
import TestSupport
import Testing

/// moto's server, from `DYNAMODB_ENDPOINT` (`make test` starts one through local-harness/with_moto.sh).
enum Moto {
    static let endpoint = LocalDynamoDB.endpoint
    static let skipMessage = Comment(rawValue: LocalDynamoDB.skipMessage)

    /// The real transport, counting what it sends.
    final class CountingTransport: HTTPTransport {
        let inner = CurlTransport()
        let sent = Mutex<[String]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let target = request.headers.first { $0.name == "X-Amz-Target" }?.value ?? ""
            sent.withLock { $0.append(target) }
            return try await inner.send(request)
        }
        func count(_ operation: String) -> Int { sent.withLock { $0.filter { $0.hasSuffix("." + operation) }.count } }
    }

    /// A client on moto; `hook` (a `ResendingTransport`) replaces `transport` when given.
    static func client(
        hook: ResendingTransport? = nil,
        transport: any HTTPTransport = CurlTransport()
    ) -> DynamoDBClient {
        Fixture.client(hook ?? transport, endpoint: endpoint!)
    }

    /// A fresh table (docs/api.md section 6 shape) for one test.
    static func freshTable() async throws -> Table {
        let table = Table(name: "attestgate-\(Bytes.hex(SystemRandomBytes().bytes(6)))")
        _ = try await client().createTable(table, deadline: .after(.seconds(60)))
        return table
    }
}

struct SystemRandomBytes: RandomSource {
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }
}

@Suite(.enabled(if: Moto.endpoint != nil, Moto.skipMessage))
struct MotoIntegrationTests {
    let deadline = Deadline.after(.seconds(60))

    @Test func createDescribeAndTimeToLive() async throws {
        let client = Moto.client()
        let table = Table(name: "attestgate-ttl-\(Bytes.hex(SystemRandomBytes().bytes(4)))")
        let created = try await client.createTable(table, deadline: deadline)
        #expect(created.name == table.name)
        let described = try await client.describeTable(table.name, deadline: deadline)
        #expect(described.status == "ACTIVE")
        #expect(described.keySchema.map(\.name) == ["PK", "SK"])
        #expect(described.keySchema.map(\.type) == ["HASH", "RANGE"])
        #expect(Set(described.attributeDefinitions.map(\.type)) == ["S"])
        #expect(described.billingMode == "PAY_PER_REQUEST")
        let ttl = try await client.updateTimeToLive(
            table: table.name,
            attribute: "TTL",
            enabled: true,
            deadline: deadline
        )
        #expect(ttl.attribute == "TTL" && ttl.enabled)
        let status = try await client.describeTimeToLive(table: table.name, deadline: deadline)
        #expect(status.attribute == "TTL")
        #expect(status.status == "ENABLED")
        await #expect(throws: DynamoDBError(.resourceNotFound)) {
            try await client.describeTable("no-such-table-\(table.name)", deadline: deadline)
        }
    }

    @Test func putGetDeleteEveryType() async throws {
        let client = Moto.client()
        let table = try await Moto.freshTable()
        var item = Fixture.key("DEVICE#1", "ATTEST_KEY")
        item.merge(
            [
                "s": .s("héllo"), "n": .n("42"), "b": .b([0, 1, 255]), "t": .bool(false), "z": .null,
                "m": .m(["x": .l([.s("a"), .n("1")])]), "ss": .ss(["a", "b"]), "ns": .ns(["1", "2"]),
                "bs": .bs([[1], [2]]),
            ]
        ) { $1 }
        try await client.putItem(PutItem(table: table, item: item), deadline: deadline)
        let read = try #require(
            try await client.getItem(table, key: Fixture.key("DEVICE#1", "ATTEST_KEY"), deadline: deadline)
        )
        #expect(read["s"] == .s("héllo"))
        #expect(read["b"] == .b([0, 1, 255]))
        #expect(read["m"] == item["m"])
        if case .ss(let strings)? = read["ss"] { #expect(Set(strings) == ["a", "b"]) } else { Issue.record("ss") }
        #expect(try await client.getItem(table, key: Fixture.key("DEVICE#1", "NOPE"), deadline: deadline) == nil)
        let deleted = try await client.deleteItem(
            DeleteItem(table: table, key: Fixture.key("DEVICE#1", "ATTEST_KEY"), returnValues: .allOld),
            deadline: deadline
        )
        #expect(deleted?["n"] == .n("42"))
        #expect(try await client.getItem(table, key: Fixture.key("DEVICE#1", "ATTEST_KEY"), deadline: deadline) == nil)
    }

    @Test func updateReturnsNewValues() async throws {
        let client = Moto.client()
        let table = try await Moto.freshTable()
        let add = UpdateItem(
            table: table,
            key: Fixture.key("AI_BUDGET#2026-11-30", "TOTAL"),
            update: UpdateExpression(
                set: ["\(name: "TTL") = \(value: .number(1_800_000_000))"],
                add: ["\(name: "calls") \(value: .number(1))"]
            ),
            returnValues: .allNew
        )
        #expect(try await client.updateItem(add, deadline: deadline)?["calls"] == .n("1"))
        #expect(try await client.updateItem(add, deadline: deadline)?["calls"] == .n("2"))
    }

    @Test func queryPagesInSortKeyOrder() async throws {
        let client = Moto.client()
        let table = try await Moto.freshTable()
        for sk in ["QUOTA#generate#2026-11-29", "QUOTA#generate#2026-11-30", "ATTEST_KEY"] {
            try await client.putItem(PutItem(table: table, item: Fixture.key("DEVICE#9", sk)), deadline: deadline)
        }
        try await client.putItem(PutItem(table: table, item: Fixture.key("DEVICE#8", "QUOTA#x")), deadline: deadline)
        let condition: DynamoExpression =
            "\(name: "PK") = \(value: .s("DEVICE#9")) AND begins_with(\(name: "SK"), \(value: .s("QUOTA#")))"
        let all = try await client.query(Query(table: table, keyCondition: condition), deadline: deadline)
        #expect(all.items.map { $0["SK"] } == [.s("QUOTA#generate#2026-11-29"), .s("QUOTA#generate#2026-11-30")])
        let first = try await client.query(Query(table: table, keyCondition: condition, limit: 1), deadline: deadline)
        #expect(first.items.count == 1)
        let start = try #require(first.lastEvaluatedKey)
        let rest = try await client.query(
            Query(table: table, keyCondition: condition, exclusiveStartKey: start),
            deadline: deadline
        )
        #expect(rest.items.map { $0["SK"] } == [.s("QUOTA#generate#2026-11-30")])
    }

    @Test func failedConditionReturnsTheOldItemAndIsNotRetried() async throws {
        let transport = Moto.CountingTransport()
        let client = Moto.client(transport: transport)
        let table = try await Moto.freshTable()
        var item = Fixture.key("DEVICE#1", "ATTEST_KEY")
        item["counter"] = .n("5")
        try await client.putItem(PutItem(table: table, item: item), deadline: deadline)
        let lower = UpdateItem(
            table: table,
            key: Fixture.key("DEVICE#1", "ATTEST_KEY"),
            update: UpdateExpression(set: ["\(name: "counter") = \(value: .number(4))"]),
            condition: "\(name: "counter") < \(value: .number(4))"
        )
        do {
            try await client.updateItem(lower, deadline: deadline)
            Issue.record("a counter that goes down must fail its condition")
        } catch {
            #expect(error.reason == .conditionalCheckFailed)
            #expect(error.oldItem == item)
        }
        #expect(transport.count("UpdateItem") == 1)
        await #expect(throws: DynamoDBError(.conditionalCheckFailed)) {
            try await client.putItem(
                PutItem(table: table, item: item, condition: "attribute_not_exists(PK)"),
                deadline: deadline
            )
        }
    }
}
