/// A DynamoDB expression (condition, key condition, filter, projection, or one update action) whose
/// attribute names and values are interpolated, never written as placeholders.
///
/// ```swift
/// let condition: DynamoExpression = "attribute_exists(PK) AND \(name: "expires_at") > \(value: .number(now))"
/// ```
///
/// The placeholders (`#n0`, `:v0`) are allocated when the request is built (`ExpressionRenderer`), shared by
/// every expression of that request, so no request can carry an undefined placeholder (literal text may not
/// contain `#` or `:`) or an unused one (only interpolations allocate). Literal text is also checked for
/// balanced parentheses before anything is sent.
package struct DynamoExpression: Sendable, Hashable, ExpressibleByStringInterpolation {
    package enum Segment: Sendable, Hashable {
        case text(String)
        case name(String)
        case value(AttributeValue)
    }

    package private(set) var segments: [Segment]

    package init(segments: [Segment]) { self.segments = segments }

    package init(stringLiteral value: String) { self.segments = [.text(value)] }

    package init(stringInterpolation: StringInterpolation) { self.segments = stringInterpolation.segments }

    package struct StringInterpolation: StringInterpolationProtocol {
        var segments: [Segment] = []

        package init(literalCapacity: Int, interpolationCount: Int) {}

        package mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { segments.append(.text(literal)) }
        }

        /// An attribute name, sent through `ExpressionAttributeNames` (so reserved words are safe).
        package mutating func appendInterpolation(name: String) { segments.append(.name(name)) }

        /// A value, sent through `ExpressionAttributeValues`.
        package mutating func appendInterpolation(value: AttributeValue) { segments.append(.value(value)) }

        /// Another expression, inlined (its own names and values come along).
        package mutating func appendInterpolation(_ expression: DynamoExpression) {
            segments.append(contentsOf: expression.segments)
        }
    }

    /// `(self) AND (other)`.
    package func and(_ other: DynamoExpression) -> DynamoExpression { "(\(self)) AND (\(other))" }

    /// `lhs` followed directly by `rhs` (write the spaces yourself).
    package static func + (lhs: DynamoExpression, rhs: DynamoExpression) -> DynamoExpression {
        DynamoExpression(segments: lhs.segments + rhs.segments)
    }

    /// `(self) OR (other)`.
    package func or(_ other: DynamoExpression) -> DynamoExpression { "(\(self)) OR (\(other))" }
}

/// An `UpdateExpression`, one list of actions per clause; rendered `SET a, b REMOVE c ADD d DELETE e`.
/// Clauses are kept apart so that pieces (such as the own-write token) can be added to any update.
package struct UpdateExpression: Sendable, Hashable {
    package var set: [DynamoExpression]
    package var remove: [DynamoExpression]
    package var add: [DynamoExpression]
    package var delete: [DynamoExpression]

    package init(
        set: [DynamoExpression] = [],
        remove: [DynamoExpression] = [],
        add: [DynamoExpression] = [],
        delete: [DynamoExpression] = []
    ) {
        self.set = set
        self.remove = remove
        self.add = add
        self.delete = delete
    }

    var isEmpty: Bool { self.set.isEmpty && remove.isEmpty && add.isEmpty && delete.isEmpty }

    var combined: [(keyword: String, actions: [DynamoExpression])] {
        [("SET", self.set), ("REMOVE", remove), ("ADD", add), ("DELETE", delete)].filter { !$0.actions.isEmpty }
    }
}
