package import AttestCore
package import DynamoDB

/// The single table (docs/api.md section 6) as the gate's stores use it: the client, the table, and the
/// random source that mints each conditional write's own-write token (resend safety, OwnWrite.swift).
package struct GateTable: Sendable {
    package let client: DynamoDBClient
    package let table: Table
    package let random: any RandomSource

    package init(client: DynamoDBClient, table: Table, random: any RandomSource) {
        self.client = client
        self.table = table
        self.random = random
    }

    /// A key of the table.
    package static func key(_ pk: String, _ sk: String) -> Item { ["PK": .s(pk), "SK": .s(sk)] }

    /// One conditional update, resend-safe through its own-write token (`OwnWriteUpdate`), tried again for
    /// contention (`Contention`) with the same token until the call's deadline.
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
        let write = OwnWriteUpdate(
            table: table,
            key: key,
            update: update,
            condition: condition,
            tokenAttribute: tokenAttribute,
            returnValues: returnValues
        )
        let token = OwnWriteToken.mint(random)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.ownWriteUpdate(write, token: token, deadline: deadline)
            } catch  where error.isContention {
                guard await Contention.standard.wait(afterAttempt: attempt, random: random, deadline: deadline) else {
                    throw StoreError(operation, .contended, detail: error.description)
                }
            } catch {
                throw StoreError(operation, .failed, detail: error.description)
            }
        }
    }

    /// Runs a plain request, mapping its failure to `StoreError`.
    func run<T>(_ operation: String, _ body: (Deadline) async throws(DynamoDBError) -> T) async throws(StoreError) -> T
    {
        do {
            return try await body(Deadline.forCall())
        } catch {
            throw StoreError(operation, .failed, detail: error.description)
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
