package import AttestCore
package import DynamoDB

/// The single table (docs/api.md section 6) as the gate's stores use it: the client, the table and how
/// conditional writes protect themselves against resends.
package struct GateTable: Sendable {
    package let client: DynamoDBClient
    package let table: Table
    package let random: any RandomSource
    /// `.ownWriteTokens` in the product; the resend harness (issue 8) builds a second table value with
    /// `.controlWithoutTokens` to show that the same writes without tokens break under a resend.
    package let safety: WriteSafety

    package enum WriteSafety: Sendable, Hashable {
        /// Every conditional write carries a per-call token and reads `ALL_OLD` on refusal.
        case ownWriteTokens
        /// The pre-fix write: same condition, no token. Only the harness's controls use it.
        case controlWithoutTokens
    }

    package init(client: DynamoDBClient, table: Table, random: any RandomSource, safety: WriteSafety = .ownWriteTokens)
    {
        self.client = client
        self.table = table
        self.random = random
        self.safety = safety
    }

    /// A key of the table.
    package static func key(_ pk: String, _ sk: String) -> Item { ["PK": .s(pk), "SK": .s(sk)] }

    /// One conditional update, resend-safe unless this is a control table.
    /// - Throws: `StoreError` named after `operation` for anything but a refused condition.
    func update(
        _ operation: String,
        key: Item,
        update: UpdateExpression,
        condition: DynamoExpression?,
        tokenAttribute: String,
        returnValues: ReturnValues = .none
    ) async throws(StoreError) -> OwnWriteOutcome {
        let deadline = Deadline.forCall()
        do {
            switch safety {
            case .ownWriteTokens:
                let write = OwnWriteUpdate(
                    table: table,
                    key: key,
                    update: update,
                    condition: condition,
                    tokenAttribute: tokenAttribute,
                    returnValues: returnValues
                )
                return try await client.ownWriteUpdate(write, random: random, deadline: deadline)
            case .controlWithoutTokens:
                let request = UpdateItem(
                    table: table,
                    key: key,
                    update: update,
                    condition: condition,
                    returnValues: returnValues,
                    returnOldItemOnConditionFailure: true
                )
                do {
                    return .applied(attributes: try await client.updateItem(request, deadline: deadline))
                } catch  where error.reason == .conditionalCheckFailed {
                    return .refused(row: error.oldItem)
                }
            }
        } catch {
            throw StoreError("store.\(operation)_failed", detail: error.description)
        }
    }

    /// Runs a plain request, mapping its failure to `StoreError`.
    func run<T>(_ operation: String, _ body: (Deadline) async throws(DynamoDBError) -> T) async throws(StoreError) -> T
    {
        do {
            return try await body(Deadline.forCall())
        } catch {
            throw StoreError("store.\(operation)_failed", detail: error.description)
        }
    }
}

extension OwnWriteOutcome {
    /// The row after a successful write: the returned attributes, or the row a resend found.
    var row: Item? {
        switch self {
        case .applied(let attributes): attributes
        case .appliedByEarlierSend(let row): row
        case .refused(let row): row
        }
    }
}
