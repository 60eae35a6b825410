import AttestCore
import DynamoDB
import HTTPClient
import TestSupport
import Testing

@Suite struct OwnWriteUnitTests {
    @Test func judgeReadsTheToken() {
        let ours: Item = ["PK": .s("a"), "w": .s("tok")]
        #expect(OwnWriteToken.judge(ours, attribute: "w", token: "tok") == .appliedByEarlierSend(row: ours))
        let theirs: Item = ["PK": .s("a"), "w": .s("other")]
        #expect(OwnWriteToken.judge(theirs, attribute: "w", token: "tok") == .refused(row: theirs))
        #expect(OwnWriteToken.judge(nil, attribute: "w", token: "tok") == .refused(row: nil))
        #expect(OwnWriteToken.judge(["w": .b(Array("tok".utf8))], attribute: "w", token: "tok").succeeded == false)
    }

    @Test func tokensAreFreshPerCall() {
        let random = CountingRandom()
        #expect(OwnWriteToken.mint(random) != OwnWriteToken.mint(random))
        #expect(OwnWriteToken.mint(random).count == 32)
    }

    @Test func requestCarriesTokenGuardAndAllOld() async throws {
        let transport = ScriptedTransport([.respond(Fixture.ok(#"{"Attributes":{"calls":{"N":"3"}}}"#))])
        let write = OwnWriteUpdate(
            table: Fixture.table,
            key: Fixture.key("AI_BUDGET#2026-11-30", "TOTAL"),
            update: UpdateExpression(add: ["\(name: "calls") \(value: .number(1))"]),
            condition: "attribute_not_exists(\(name: "calls")) OR \(name: "calls") < \(value: .number(10))",
            tokenAttribute: "write",
            returnValues: .allNew
        )
        let outcome = try await Fixture.client(transport).ownWriteUpdate(
            write,
            random: ConstantRandom(value: 0xab),
            deadline: .after(.seconds(60))
        )
        #expect(outcome == .applied(attributes: ["calls": .n("3")]))
        let body = try Fixture.body(try #require(transport.requests.first))
        let token = String(repeating: "ab", count: 16)
        #expect(body["UpdateExpression"]?.stringValue == "SET #n0 = :v0 ADD #n1 :v1")
        #expect(
            body["ConditionExpression"]?.stringValue
                == "(attribute_not_exists(#n1) OR #n1 < :v2) AND (attribute_not_exists(#n0) OR #n0 <> :v3)"
        )
        #expect(body["ExpressionAttributeNames"]?["#n0"]?.stringValue == "write")
        #expect(body["ExpressionAttributeValues"]?[":v0"] == .object(["S": .string(token)]))
        #expect(body["ExpressionAttributeValues"]?[":v3"] == .object(["S": .string(token)]))
        #expect(body["ReturnValuesOnConditionCheckFailure"]?.stringValue == "ALL_OLD")
        #expect(body["ReturnValues"]?.stringValue == "ALL_NEW")
    }
}
