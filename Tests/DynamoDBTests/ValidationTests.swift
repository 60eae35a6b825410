import AttestCore
import DynamoDB
import HTTPClient
import TestSupport
import Testing

/// Bad input is refused before anything is sent, with a typed error.
@Suite struct ValidationTests {
    let transport = ScriptedTransport([.respond(Fixture.ok("{}"))])
    var client: DynamoDBClient { Fixture.client(transport) }
    let deadline = Deadline.after(.seconds(60))

    @Test func itemOver400KB() async {
        var item = Fixture.key("DEVICE#1", "BLOB")
        item["data"] = .s(String(repeating: "x", count: 400 * 1024))
        await #expect(throws: DynamoDBError(.itemTooLarge)) {
            try await client.putItem(PutItem(table: Fixture.table, item: item), deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.itemTooLarge)) {
            try await client.updateItem(
                UpdateItem(
                    table: Fixture.table,
                    key: Fixture.key("DEVICE#1", "BLOB"),
                    update: UpdateExpression(set: [
                        "\(name: "data") = \(value: .s(String(repeating: "x", count: 400 * 1024 + 1)))"
                    ])
                ),
                deadline: deadline
            )
        }
        #expect(transport.requests.count == 0)
    }

    @Test func itemJustUnderTheLimitIsSent() async throws {
        var item = Fixture.key("DEVICE#1", "BLOB")
        item["data"] = .s(String(repeating: "x", count: 400 * 1024 - 100))
        try await client.putItem(PutItem(table: Fixture.table, item: item), deadline: deadline)
        #expect(transport.requests.count == 1)
    }

    @Test func sortKeyOver1024Bytes() async {
        let key = Fixture.key("DEVICE#1", "ATTEST_CHALLENGE#" + String(repeating: "A", count: 1024))
        await #expect(throws: DynamoDBError(.keyTooLarge)) {
            try await client.getItem(Fixture.table, key: key, deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.keyTooLarge)) {
            try await client.putItem(PutItem(table: Fixture.table, item: key), deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.keyTooLarge)) {
            try await client.deleteItem(DeleteItem(table: Fixture.table, key: key), deadline: deadline)
        }
        #expect(transport.requests.count == 0)
    }

    @Test func keyLimitsAreExact() async throws {
        _ = try await client.getItem(
            Fixture.table,
            key: Fixture.key(String(repeating: "p", count: 2048), String(repeating: "s", count: 1024)),
            deadline: deadline
        )
        #expect(transport.requests.count == 1)
        await #expect(throws: DynamoDBError(.keyTooLarge)) {
            try await client.getItem(
                Fixture.table,
                key: Fixture.key(String(repeating: "p", count: 2049), "s"),
                deadline: deadline
            )
        }
        // Multi-byte characters count in UTF-8 bytes: 342 × 3 = 1,026 bytes (342 characters).
        await #expect(throws: DynamoDBError(.keyTooLarge)) {
            try await client.getItem(
                Fixture.table,
                key: Fixture.key("p", String(repeating: "あ", count: 342)),
                deadline: deadline
            )
        }
        #expect(transport.requests.count == 1)
    }

    @Test func wrongKeyShape() async {
        await #expect(throws: DynamoDBError(.invalidKey)) {
            try await client.getItem(Fixture.table, key: ["PK": .s("a")], deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.invalidKey)) {
            try await client.getItem(
                Fixture.table,
                key: ["PK": .s("a"), "SK": .s("b"), "x": .null],
                deadline: deadline
            )
        }
        await #expect(throws: DynamoDBError(.invalidKey)) {
            try await client.getItem(Fixture.table, key: ["PK": .bool(true), "SK": .s("b")], deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.invalidKey)) {
            try await client.getItem(Fixture.table, key: Fixture.key("", "b"), deadline: deadline)
        }
        #expect(transport.requests.count == 0)
    }

    @Test func unknownPlaceholder() async {
        let request = UpdateItem(
            table: Fixture.table,
            key: Fixture.key("DEVICE#1", "ATTEST_KEY"),
            update: UpdateExpression(set: ["\(name: "counter") = \(value: .number(1))"]),
            condition: "#k = :k"
        )
        await #expect(throws: DynamoDBError(.invalidExpression)) {
            try await client.updateItem(request, deadline: deadline)
        }
        await #expect(throws: DynamoDBError(.invalidExpression)) {
            try await client.query(Query(table: Fixture.table, keyCondition: "PK = :pk"), deadline: deadline)
        }
        #expect(transport.requests.count == 0)
    }
}
