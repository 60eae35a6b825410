package import AWSJSON
internal import AttestCore

/// Why a DynamoDB call failed: refused before sending (bad input), or the service's / transport's failure.
///
/// Equality uses only `reason`. Service and transport failures reuse `AWSError`'s reasons under a
/// `dynamodb.` prefix (`dynamodb.throttled`, `dynamodb.conditional_check_failed`, `dynamodb.timeout`, ...).
package struct DynamoDBError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        private init(_ slug: String) { self.slug = slug }
        package var description: String { slug }

        /// The same failure as `reason` of the AWS JSON layer, e.g. `aws.throttled` → `dynamodb.throttled`.
        package init(_ reason: AWSError.Reason) {
            self.slug = "dynamodb." + reason.slug.dropFirst("aws.".count)
        }

        package static let conditionalCheckFailed = Reason(AWSError.Reason.conditionalCheckFailed)
        package static let throttled = Reason(AWSError.Reason.throttled)
        package static let transactionConflict = Reason(AWSError.Reason.transactionConflict)
        package static let validation = Reason(AWSError.Reason.validation)
        package static let deadlineExceeded = Reason(AWSError.Reason.deadlineExceeded)
        package static let resourceNotFound = Reason(AWSError.Reason.resourceNotFound)

        // Refused before sending: nothing went over the network.
        /// The item is larger than DynamoDB's 400 KB limit.
        package static let itemTooLarge = Reason("dynamodb.item_too_large")
        /// A partition key over 2,048 bytes or a sort key over 1,024 bytes.
        package static let keyTooLarge = Reason("dynamodb.key_too_large")
        /// A key attribute missing, extra, or not a string/number/binary.
        package static let invalidKey = Reason("dynamodb.invalid_key")
        /// An expression with a placeholder it did not allocate, unbalanced parentheses, or empty.
        package static let invalidExpression = Reason("dynamodb.invalid_expression")
        /// A response item that is not valid DynamoDB wire format.
        package static let malformedItem = Reason("dynamodb.malformed_item")
    }

    package let reason: Reason
    /// For logs only.
    package let detail: String
    /// The `AWSError` behind a service or transport failure (its `code`, `status`, `body`).
    package let underlying: AWSError?
    /// For `dynamodb.conditional_check_failed` with `ReturnValuesOnConditionCheckFailure=ALL_OLD`: the item
    /// as it was when the condition failed (nil when no item existed).
    package let oldItem: Item?

    package init(_ reason: Reason, detail: String = "", underlying: AWSError? = nil, oldItem: Item? = nil) {
        self.reason = reason
        self.detail = detail
        self.underlying = underlying
        self.oldItem = oldItem
    }

    /// Wraps a failure of the AWS JSON layer, reading the `ALL_OLD` item of a conditional-check failure.
    package init(_ error: AWSError) {
        var oldItem: Item?
        if error.reason == .conditionalCheckFailed, let json = error.body?["Item"] {
            oldItem = try? AttributeValue.item(json: json)
        }
        self.init(Reason(error.reason), detail: error.description, underlying: error, oldItem: oldItem)
    }

    /// The service's error code (`ConditionalCheckFailedException`, ...), when a response arrived.
    package var code: String? { underlying?.code }

    /// A refusal for contention on the item, which DynamoDB answers without applying the write: an ongoing
    /// transaction holds it (`TransactionConflictException`), or the item or its partition is over its
    /// throughput (throttling). Retrying is the documented answer (Developer Guide, "Transaction conflict
    /// handling" and "Error handling with DynamoDB"); docs/dynamodb.md, "Contention".
    package var isContention: Bool {
        reason == .transactionConflict || reason == .throttled
    }

    /// Whether an attempt of this call may have been applied without an answer saying so (`AWSError`):
    /// false means nothing of it was applied, so it may go to another item.
    package var mayHaveApplied: Bool { underlying?.mayHaveApplied ?? false }

    package static func == (lhs: DynamoDBError, rhs: DynamoDBError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { detail.isEmpty ? reason.slug : "\(reason.slug): \(detail)" }
}
