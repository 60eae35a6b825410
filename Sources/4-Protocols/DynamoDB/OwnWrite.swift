package import AttestCore

/// A conditional write that can tell its own resend from someone else's write (docs/dynamodb.md, own writes).
///
/// ## Why
/// When a write commits but its response is lost (timeout, connection reset), the client sends it again, and
/// the second send is evaluated against the row the first one already changed. A plain conditional write
/// then reads its own success as a refusal (a spent challenge looks "already spent", a counter update looks
/// like a replay), and an unconditional `ADD` counts twice.
///
/// ## How
/// 1. A fresh token is minted per logical call (`RandomSource`, 16 bytes, hex).
/// 2. The same write stores it in `tokenAttribute` (`SET #token = :token`, or in the put item).
/// 3. The condition becomes `(your condition) AND (attribute_not_exists(#token) OR #token <> :token)`, so a
///    resend of an already-applied write always fails its condition instead of applying twice.
/// 4. The write asks for `ReturnValuesOnConditionCheckFailure=ALL_OLD`. On a conditional-check failure the
///    returned row is inspected: our token there means this call's first send landed → `.appliedByEarlierSend`;
///    anything else → `.refused`.
///
/// ## Using it
/// ```swift
/// let write = OwnWriteUpdate(
///     table: table,
///     key: ["PK": .s("DEVICE#\(id)"), "SK": .s("ATTEST_CHALLENGE#\(b64)")],
///     update: UpdateExpression(set: ["\(name: "spent") = \(value: .bool(true))"]),
///     condition: "attribute_exists(PK) AND \(name: "expires_at") > \(value: .number(now))",
///     tokenAttribute: "spent_by"
/// )
/// switch try await client.ownWriteUpdate(write, random: random, deadline: deadline) {
/// case .applied, .appliedByEarlierSend: // spent by this call
/// case .refused: // not spendable
/// }
/// ```
///
/// ## Limits
/// - Each row keeps only the latest writer's token: if another writer changes the row between our first
///   send and our resend, the resend is judged against their token (it may then apply again or be refused).
///   The window is one retry backoff, an accepted risk (docs/dynamodb.md, "Own-write pattern").
/// - `.appliedByEarlierSend` carries the row as it is now (the `ALL_OLD` of the resend), which already
///   holds our first send's effect: read `ALL_NEW`-style values from it, not pre-images.
/// - Use one token attribute per kind of write on a row, so two kinds of writes never mistake each other.
package struct OwnWriteUpdate: Sendable, Hashable {
    package var table: Table
    package var key: Item
    package var update: UpdateExpression
    /// The caller's condition; nil for "always apply (once)".
    package var condition: DynamoExpression?
    /// Where the token is stored, e.g. `spent_by`, `counter_write_id`, `write`.
    package var tokenAttribute: String
    /// What `.applied` returns.
    package var returnValues: ReturnValues

    package init(
        table: Table,
        key: Item,
        update: UpdateExpression,
        condition: DynamoExpression? = nil,
        tokenAttribute: String,
        returnValues: ReturnValues = .none
    ) {
        self.table = table
        self.key = key
        self.update = update
        self.condition = condition
        self.tokenAttribute = tokenAttribute
        self.returnValues = returnValues
    }
}

/// A whole-item `PutItem` with the own-write token (see `OwnWriteUpdate` for the pattern).
package struct OwnWritePut: Sendable, Hashable {
    package var table: Table
    package var item: Item
    package var condition: DynamoExpression?
    package var tokenAttribute: String

    package init(table: Table, item: Item, condition: DynamoExpression? = nil, tokenAttribute: String) {
        self.table = table
        self.item = item
        self.condition = condition
        self.tokenAttribute = tokenAttribute
    }
}

/// How an own-write ended. Errors other than a conditional-check failure are thrown.
package enum OwnWriteOutcome: Sendable, Hashable {
    /// This send applied the write; `attributes` as `returnValues` asked (nil for `.none` and for puts).
    case applied(attributes: Item?)
    /// A resend found our own token: the first send applied the write and only its response was lost.
    /// `row` is the item as it stands, our write included.
    case appliedByEarlierSend(row: Item)
    /// The condition failed on someone else's state; `row` is that item (nil when there is none).
    case refused(row: Item?)

    /// True for `.applied` and `.appliedByEarlierSend`: the write is in the table exactly once.
    package var succeeded: Bool {
        if case .refused = self { return false }
        return true
    }
}

extension DynamoDBClient {
    /// Runs `write` as an own-write (see `OwnWriteUpdate`).
    /// - Parameters:
    ///   - random: mints the token; one token per call.
    ///   - deadline: the call's deadline, resends and retries included.
    /// - Throws: `DynamoDBError` for everything but a conditional-check failure.
    package func ownWriteUpdate(
        _ write: OwnWriteUpdate,
        random: any RandomSource,
        deadline: Deadline
    ) async throws(DynamoDBError) -> OwnWriteOutcome {
        try await ownWriteUpdate(write, token: OwnWriteToken.mint(random), deadline: deadline)
    }

    /// Runs `write` as an own-write with a token the caller minted (`OwnWriteToken.mint`), so that a caller
    /// that sends the same logical write again after a refusal for contention keeps one token for it.
    package func ownWriteUpdate(
        _ write: OwnWriteUpdate,
        token: String,
        deadline: Deadline
    ) async throws(DynamoDBError) -> OwnWriteOutcome {
        var update = write.update
        update.set.append("\(name: write.tokenAttribute) = \(value: .s(token))")
        let request = UpdateItem(
            table: write.table,
            key: write.key,
            update: update,
            condition: OwnWriteToken.guarded(write.condition, attribute: write.tokenAttribute, token: token),
            returnValues: write.returnValues,
            returnOldItemOnConditionFailure: true
        )
        do {
            return .applied(attributes: try await updateItem(request, deadline: deadline))
        } catch  where error.reason == .conditionalCheckFailed {
            return OwnWriteToken.judge(error.oldItem, attribute: write.tokenAttribute, token: token)
        }
    }

    /// Runs `write` as an own-write put (see `OwnWriteUpdate`).
    package func ownWritePut(
        _ write: OwnWritePut,
        random: any RandomSource,
        deadline: Deadline
    ) async throws(DynamoDBError) -> OwnWriteOutcome {
        let token = OwnWriteToken.mint(random)
        var item = write.item
        item[write.tokenAttribute] = .s(token)
        let request = PutItem(
            table: write.table,
            item: item,
            condition: OwnWriteToken.guarded(write.condition, attribute: write.tokenAttribute, token: token),
            returnValues: .none,
            returnOldItemOnConditionFailure: true
        )
        do {
            try await putItem(request, deadline: deadline)
            return .applied(attributes: nil)
        } catch  where error.reason == .conditionalCheckFailed {
            return OwnWriteToken.judge(error.oldItem, attribute: write.tokenAttribute, token: token)
        }
    }
}

/// The token half of the own-write pattern, shared by updates and puts.
package enum OwnWriteToken {
    /// 16 random bytes as lower-case hex.
    package static func mint(_ random: any RandomSource) -> String { Bytes.hex(random.bytes(16)) }

    /// `(condition) AND (attribute_not_exists(#token) OR #token <> :token)`: a resend never applies twice.
    package static func guarded(_ condition: DynamoExpression?, attribute: String, token: String) -> DynamoExpression {
        let notOurs: DynamoExpression =
            "attribute_not_exists(\(name: attribute)) OR \(name: attribute) <> \(value: .s(token))"
        return condition.map { $0.and(notOurs) } ?? notOurs
    }

    /// Reads a conditional-check failure's `ALL_OLD` row: our token there means our first send landed.
    package static func judge(_ row: Item?, attribute: String, token: String) -> OwnWriteOutcome {
        if let row, row[attribute] == .s(token) { return .appliedByEarlierSend(row: row) }
        return .refused(row: row)
    }
}
