import AttestCore
import DynamoDB
import Testing

@Suite struct ExpressionTests {
    @Test func allocatesSharedPlaceholders() throws {
        var renderer = ExpressionRenderer()
        let update = UpdateExpression(
            set: ["\(name: "counter") = \(value: .number(5))", "\(name: "write") = \(value: .s("tok"))"],
            remove: ["\(name: "old")"],
            add: ["\(name: "calls") \(value: .number(1))"]
        )
        let condition: DynamoExpression = "attribute_exists(PK) AND \(name: "counter") < \(value: .number(5))"
        #expect(try renderer.render(update) == "SET #n0 = :v0, #n1 = :v1 REMOVE #n2 ADD #n3 :v2")
        #expect(try renderer.render(condition, role: "ConditionExpression") == "attribute_exists(PK) AND #n0 < :v3")
        var input: [String: JSONValue] = [:]
        renderer.addAttributes(to: &input)
        #expect(
            input["ExpressionAttributeNames"]
                == .object(
                    ["#n0": "counter", "#n1": "write", "#n2": "old", "#n3": "calls"].mapValues(JSONValue.string)
                )
        )
        #expect(input["ExpressionAttributeValues"]?[":v3"] == .object(["N": .string("5")]))
        #expect(input["ExpressionAttributeValues"]?.objectValue?.count == 4)
    }

    @Test func nothingAllocatedMeansNoAttributeMaps() throws {
        var renderer = ExpressionRenderer()
        #expect(
            try renderer.render("attribute_not_exists(PK)", role: "ConditionExpression") == "attribute_not_exists(PK)"
        )
        var input: [String: JSONValue] = [:]
        renderer.addAttributes(to: &input)
        #expect(input.isEmpty)
    }

    @Test(arguments: [
        "#missing = :v", "attribute_exists(#spent)", "a = :value", "(a = b", "a = b)", ")(", "   ", "",
        "\u{00A0}\u{2003}", "(é = b", "é #x", "ü = :v",
    ])
    func refusesHandWrittenPlaceholdersAndUnbalancedText(_ text: String) {
        var renderer = ExpressionRenderer()
        #expect(throws: DynamoDBError(.invalidExpression)) {
            try renderer.render(DynamoExpression(stringLiteral: text), role: "ConditionExpression")
        }
    }

    /// Whole characters decide: an ASCII mark followed by a combining mark is another character.
    @Test func marksWithCombiningCharactersAreNotMarks() throws {
        var renderer = ExpressionRenderer()
        #expect(try renderer.render("a = (\u{301}", role: "c") == "a = (\u{301}")
        #expect(try renderer.render("a#\u{20E3} b", role: "c") == "a#\u{20E3} b")
    }

    @Test func composition() throws {
        var renderer = ExpressionRenderer()
        let a: DynamoExpression = "\(name: "x") = \(value: .number(1))"
        let b: DynamoExpression = "attribute_not_exists(\(name: "x"))"
        #expect(try renderer.render(a.or(b), role: "c") == "(#n0 = :v0) OR (attribute_not_exists(#n0))")
    }

    @Test func emptyUpdateIsRefused() {
        var renderer = ExpressionRenderer()
        #expect(throws: DynamoDBError(.invalidExpression)) { try renderer.render(UpdateExpression()) }
    }
}
