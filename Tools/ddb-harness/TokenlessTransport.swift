import AttestCore
import HTTPClient
import Synchronization

/// The product's own-write token taken out of every `UpdateItem` on the wire, and a give-back's marker out of
/// its `TransactWriteItems`: the control of each check (and `--break`) is the product's write exactly as the
/// product builds it, minus what makes it resend-safe.
///
/// `OwnWriteUpdate` (Sources/4-Protocols/DynamoDB/OwnWrite.swift) adds two things to a write: the action
/// `#token = :token` at the end of its `SET` clause, and the guard `attribute_not_exists(#token) OR
/// #token <> :token` (alone, or as `(condition) AND (guard)`). This transport removes both, and the two
/// placeholders' values (and the name, when nothing else uses it), and sends what is left: the same
/// condition, the same update, `ReturnValuesOnConditionCheckFailure=ALL_OLD` kept. The product then reads a
/// refusal exactly as the pre-token write did (no token of its own in the row: `.refused`). A request
/// without the guard (setup, the harness-written pre-fix forms, reads) passes unchanged.
///
/// A give-back (`GiveBack.swift`) is one transaction: `Put RETURN#{callID}` if it does not exist, then the
/// counter's decrement. Here the marker's `Put` becomes a `ConditionCheck` of the same key that always holds:
/// nothing is written, and the transaction keeps its shape (the decrement stays the second action, its
/// cancellation reason where the product reads it). A resend then finds no marker and applies the
/// decrement again, as the pre-marker give-back did.
///
/// The body changes after signing; moto does not check signatures (docs/resend-harness.md, "What moto
/// cannot prove"), so this control runs against moto only, as the whole harness does.
final class TokenlessTransport: HTTPTransport {
    private let base: any HTTPTransport
    private let count = Atomic<Int>(0)

    init(_ base: any HTTPTransport) { self.base = base }

    /// How many requests had a token or a marker removed.
    var stripped: Int { count.load(ordering: .sequentiallyConsistent) }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let target = request.headers.first { $0.name == "X-Amz-Target" }?.value ?? ""
        let changed =
            target.hasSuffix(".UpdateItem")
            ? Self.withoutToken(request.body)
            : target.hasSuffix(".TransactWriteItems") ? Self.withoutMarker(request.body) : nil
        guard let body = changed else { return try await base.send(request) }
        count.add(1, ordering: .sequentiallyConsistent)
        var stripped = request
        stripped.body = body
        return try await base.send(stripped)
    }

    /// The `UpdateItem` input without its own-write token, or nil when it carries none.
    static func withoutToken(_ body: [UInt8]) -> [UInt8]? {
        guard case .object(var input)? = try? JSONValue.parse(body),
            let condition = input["ConditionExpression"]?.stringValue,
            let update = input["UpdateExpression"]?.stringValue,
            var values = input["ExpressionAttributeValues"]?.objectValue,
            var names = input["ExpressionAttributeNames"]?.objectValue
        else { return nil }

        // The guard: the token's name placeholder (twice the same) and its value placeholder.
        let guarded = try! Regex(
            #"^\((.*)\) AND \(attribute_not_exists\((#n[0-9]+)\) OR (#n[0-9]+) <> (:v[0-9]+)\)$"#
        )
        let guardOnly = try! Regex(#"^attribute_not_exists\((#n[0-9]+)\) OR (#n[0-9]+) <> (:v[0-9]+)$"#)
        let rest: String?
        let name: String
        let guardValue: String
        if let match = try? guarded.wholeMatch(in: condition), let own = match[1].substring,
            let first = match[2].substring, let second = match[3].substring, first == second,
            let value = match[4].substring
        {
            (rest, name, guardValue) = (String(own), String(first), String(value))
        } else if let match = try? guardOnly.wholeMatch(in: condition), let first = match[1].substring,
            let second = match[2].substring, first == second, let value = match[3].substring
        {
            (rest, name, guardValue) = (nil, String(first), String(value))
        } else {
            return nil
        }
        guard let token = values[guardValue] else { return nil }

        // The action `#token = :v` whose value is the same token, at the end of the SET clause.
        guard
            let action = values.keys.sorted().lazy.map({ "\(name) = \($0)" }).first(where: {
                values[String($0.split(separator: " ").last!)] == token && Self.mentions(update, $0)
            })
        else { return nil }
        let actionValue = String(action.split(separator: " ").last!)
        // Appended last: `SET a = :v0, #token = :v1 ADD …`, or alone: `SET #token = :v1 ADD …`.
        guard let newUpdate = Self.removing(", " + action, from: update) ?? Self.removing("SET " + action, from: update)
        else { return nil }

        values[guardValue] = nil
        values[actionValue] = nil
        input["UpdateExpression"] = .string(newUpdate)
        if let rest { input["ConditionExpression"] = .string(rest) } else { input["ConditionExpression"] = nil }
        let stillUsed = ["UpdateExpression", "ConditionExpression"].contains { field in
            input[field]?.stringValue.map { Self.mentions($0, name) } ?? false
        }
        if !stillUsed { names[name] = nil }
        input["ExpressionAttributeValues"] = values.isEmpty ? nil : .object(values)
        input["ExpressionAttributeNames"] = names.isEmpty ? nil : .object(names)
        return JSONValue.object(input).serializedBytes
    }

    /// The give-back transaction without its marker (see the type), or nil when it writes none.
    static func withoutMarker(_ body: [UInt8]) -> [UInt8]? {
        guard case .object(var input)? = try? JSONValue.parse(body), var actions = input["TransactItems"]?.arrayValue
        else { return nil }
        var removed = false
        for (index, action) in actions.enumerated() {
            guard let put = action["Put"], let table = put["TableName"], let pk = put["Item"]?["PK"],
                let sk = put["Item"]?["SK"], pk["S"]?.stringValue?.hasPrefix("RETURN#") == true
            else { continue }
            let check: [String: JSONValue] = [
                "TableName": table, "Key": .object(["PK": pk, "SK": sk]),
                "ConditionExpression": .string("attribute_not_exists(PK) OR attribute_exists(PK)"),
            ]
            actions[index] = .object(["ConditionCheck": .object(check)])
            removed = true
        }
        guard removed else { return nil }
        input["TransactItems"] = .array(actions)
        return JSONValue.object(input).serializedBytes
    }

    /// Whether `text` contains `piece` not followed by a digit (`#n1` is not inside `#n12`).
    static func mentions(_ text: String, _ piece: String) -> Bool { range(of: piece, in: text) != nil }

    /// `text` without `piece` (and the space that then leads), or nil when it does not contain it.
    private static func removing(_ piece: String, from text: String) -> String? {
        guard let found = range(of: piece, in: text) else { return nil }
        var out = text
        out.removeSubrange(found)
        return String(out.drop { $0 == " " })
    }

    private static func range(of piece: String, in text: String) -> Range<String.Index>? {
        var start = text.startIndex
        while let found = text[start...].firstRange(of: piece) {
            if found.upperBound == text.endIndex || !text[found.upperBound].isNumber { return found }
            start = text.index(after: found.lowerBound)
        }
        return nil
    }
}
