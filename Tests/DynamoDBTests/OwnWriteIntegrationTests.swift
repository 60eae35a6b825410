import AWSJSON
import AttestCore
import DynamoDB
import TestSupport
import Testing

/// The own-write helper against moto, with resends forced through `ResendingTransport`
/// (docs/resend-harness.md).
@Suite(.enabled(if: Moto.endpoint != nil, Moto.skipMessage))
struct OwnWriteIntegrationTests {
    let deadline = Deadline.after(.seconds(60))

    /// The daily-ceiling shape: `ADD calls 1` if under the limit.
    func reserve(_ table: Table) -> OwnWriteUpdate {
        OwnWriteUpdate(
            table: table,
            key: Fixture.key("AI_BUDGET#2026-11-30", "TOTAL"),
            update: UpdateExpression(add: ["\(name: "calls") \(value: .number(1))"]),
            condition: "attribute_not_exists(\(name: "calls")) OR \(name: "calls") < \(value: .number(10))",
            tokenAttribute: "write",
            returnValues: .allNew
        )
    }

    func calls(_ client: DynamoDBClient, _ table: Table) async throws -> AttributeValue? {
        try await client.getItem(table, key: Fixture.key("AI_BUDGET#2026-11-30", "TOTAL"), deadline: deadline)?["calls"]
    }

    @Test func resendOfALandedWriteIsRecognisedAndCountsOnce() async throws {
        let table = try await Moto.freshTable()
        let hook = ResendingTransport(resending: ["UpdateItem"])
        let client = Moto.client(hook: hook)
        let outcome = try await client.ownWriteUpdate(reserve(table), random: CountingRandom(), deadline: deadline)
        #expect(hook.resent == 1)
        guard case .appliedByEarlierSend(let row) = outcome else {
            Issue.record("expected the resend to be recognised, got \(outcome)")
            return
        }
        #expect(outcome.succeeded)
        #expect(row["calls"] == .n("1"))
        #expect(try await calls(Moto.client(), table) == .n("1"))
    }

    @Test func controlPlainWriteResentDoubleCounts() async throws {
        // Without the token, the same forced resend visibly counts twice: the hook really resends a write
        // that landed, so the test above can tell a broken implementation apart.
        let table = try await Moto.freshTable()
        let client = Moto.client(hook: ResendingTransport(resending: ["UpdateItem"]))
        let write = reserve(table)
        try await client.updateItem(
            UpdateItem(table: table, key: write.key, update: write.update, condition: write.condition),
            deadline: deadline
        )
        #expect(try await calls(Moto.client(), table) == .n("2"))
    }

    @Test func withoutResendItIsApplied() async throws {
        let table = try await Moto.freshTable()
        let client = Moto.client()
        let random = CountingRandom()
        let first = try await client.ownWriteUpdate(reserve(table), random: random, deadline: deadline)
        let stored = try await client.getItem(table, key: reserve(table).key, deadline: deadline)
        #expect(stored?["calls"] == .n("1"))
        #expect(first == .applied(attributes: stored))  // ALL_NEW is the stored row, token included
        let second = try await client.ownWriteUpdate(reserve(table), random: random, deadline: deadline)
        guard case .applied(let attributes) = second else {
            Issue.record("a second logical call must apply again, got \(second)")
            return
        }
        #expect(attributes?["calls"] == .n("2"))
    }

    @Test func anotherWritersTokenMeansRefused() async throws {
        // The challenge-spend shape: spendable once; the second spender finds the first one's token.
        let table = try await Moto.freshTable()
        let key = Fixture.key("DEVICE#1", "ATTEST_CHALLENGE#abc")
        var challenge = key
        challenge["expires_at"] = .number(2_000_000_000)
        let client = Moto.client()
        try await client.putItem(PutItem(table: table, item: challenge), deadline: deadline)
        let spend = OwnWriteUpdate(
            table: table,
            key: key,
            update: UpdateExpression(set: ["\(name: "spent") = \(value: .bool(true))"]),
            condition: "attribute_exists(PK) AND attribute_not_exists(\(name: "spent"))"
                + " AND \(name: "expires_at") > \(value: .number(1_900_000_000))",
            tokenAttribute: "spent_by"
        )
        let random = CountingRandom()
        #expect(try await client.ownWriteUpdate(spend, random: random, deadline: deadline) == .applied(attributes: nil))
        let other = try await Moto.client(hook: ResendingTransport(resending: ["UpdateItem"]))
            .ownWriteUpdate(spend, random: random, deadline: deadline)
        guard case .refused(let row) = other else {
            Issue.record("a second spender must be refused, got \(other)")
            return
        }
        #expect(row?["spent"] == .bool(true))
        #expect(row?["spent_by"] != nil)
        // A challenge never issued is refused too (no row: attribute_exists(PK) fails).
        var never = spend
        never.key = Fixture.key("DEVICE#1", "ATTEST_CHALLENGE#never")
        #expect(try await client.ownWriteUpdate(never, random: random, deadline: deadline) == .refused(row: nil))
    }

    @Test func ownWritePutRecognisesItsResend() async throws {
        let table = try await Moto.freshTable()
        let hook = ResendingTransport(resending: ["PutItem"])
        let write = OwnWritePut(
            table: table,
            item: Fixture.key("APPATTEST_KEY#k1", "OWNER").merging(["device": .s("DEVICE#1")]) { $1 },
            condition: "attribute_not_exists(PK)",
            tokenAttribute: "write"
        )
        let random = CountingRandom()
        let outcome = try await Moto.client(hook: hook).ownWritePut(write, random: random, deadline: deadline)
        #expect(hook.resent == 1)
        guard case .appliedByEarlierSend(let row) = outcome else {
            Issue.record("expected the resend to be recognised, got \(outcome)")
            return
        }
        #expect(row["device"] == .s("DEVICE#1"))
        let again = try await Moto.client().ownWritePut(write, random: random, deadline: deadline)
        #expect(again == .refused(row: row))
    }
}
