import AttestCore
import DynamoDB
import Testing

@Suite struct AttributeValueTests {
    static let every: Item = [
        "s": .s("héllo"), "n": .n("-12.5"), "b": .b([0, 255, 7]), "t": .bool(true), "z": .null,
        "m": .m(["inner": .l([.s("x"), .number(3)])]), "ss": .ss(["a", "b"]), "ns": .ns(["1", "2"]),
        "bs": .bs([[1], [2, 3]]),
    ]

    @Test func wireFormat() throws {
        let json = AttributeValue.json(item: Self.every)
        #expect(json["s"]?["S"]?.stringValue == "héllo")
        #expect(json["n"]?["N"]?.stringValue == "-12.5")
        #expect(json["b"]?["B"]?.stringValue == "AP8H")
        #expect(json["t"]?["BOOL"]?.boolValue == true)
        #expect(json["z"]?["NULL"]?.boolValue == true)
        #expect(json["m"]?["M"]?["inner"]?["L"]?.arrayValue?.count == 2)
        #expect(json["bs"]?["BS"]?.arrayValue == [.string("AQ=="), .string("AgM=")])
        #expect(
            AttributeValue.number(42).json.serialized == #"{"N":"42"}"#
        )
    }

    @Test func roundTrip() throws {
        let text = AttributeValue.json(item: Self.every).serializedBytes
        #expect(try AttributeValue.item(json: JSONValue.parse(text)) == Self.every)
    }

    @Test(arguments: [
        #"{"S":1}"#, #"{"X":"a"}"#, #"{"S":"a","N":"1"}"#, #"{"B":"***"}"#, #"{"NULL":false}"#, #"{"SS":[1]}"#, "[]",
    ])
    func rejectsMalformedValues(_ text: String) throws {
        let json = try JSONValue.parse(Array(text.utf8))
        #expect(throws: DynamoDBError(.malformedItem)) { try AttributeValue(json: json) }
    }

    @Test func rejectsDeepNesting() throws {
        var value: AttributeValue = .null
        for _ in 0..<40 { value = .l([value]) }
        let json = try JSONValue.parse(value.json.serializedBytes)
        #expect(throws: DynamoDBError(.malformedItem)) { try AttributeValue(json: json) }
    }
}
