internal import AttestCore
package import DynamoDB
package import FoundationEssentials

/// The operator's live controls on one device (`attestgate device …`; docs/operations.md, "Live controls"). Each
/// writes on a row the metered path already reads, so it applies from the next call with no request of its own:
///
/// - a device block: `blocked_reason`, `blocked_by`, `blocked_at` on `DEVICE#{id}` / `PROFILE`;
/// - a key block: `blocked_key_id` (and the same three) on the key's device's `ATTEST_KEY` row, so only that key
///   is blocked (a new key bound to the device ID is not);
/// - a grant: `ADD count -N, granted N` on the day's `QUOTA#{feature}#{day}` row, so exactly N more calls fit
///   under the same condition (`granted` also lifts the give-back's floor: `GiveBack.Part.unlessSet`).
package struct DeviceControls: Sendable {
    let table: GateTable

    package init(table: GateTable) { self.table = table }

    /// Who did it and when, stamped on what a control writes.
    package struct Stamp: Sendable {
        package let actor: String
        package let at: Date
        package init(actor: String, at: Date) {
            self.actor = actor
            self.at = at
        }
    }

    /// Blocks every metered call of `deviceID`.
    /// - Returns: whether the device ID was already blocked.
    package func block(deviceID: String, reason: String, stamp: Stamp) async throws(StoreError) -> Bool {
        let outcome = try await table.update(
            "control_block",
            key: GateTable.key("DEVICE#\(deviceID)", "PROFILE"),
            update: UpdateExpression(set: Self.blockAttributes(reason: reason, stamp: stamp)),
            condition: nil,
            tokenAttribute: "control_write",
            returnValues: .allOld
        )
        return outcome.row?["blocked_reason"] != nil
    }

    /// - Returns: whether the device ID was blocked.
    package func unblock(deviceID: String) async throws(StoreError) -> Bool {
        let outcome = try await table.update(
            "control_unblock",
            key: GateTable.key("DEVICE#\(deviceID)", "PROFILE"),
            update: UpdateExpression(remove: Self.blockNames.map { "\(name: $0)" }),
            condition: "attribute_exists(\(name: "blocked_reason"))",
            tokenAttribute: "control_write"
        )
        return outcome.succeeded
    }

    /// What a key control found.
    package enum KeyResult: Sendable, Hashable {
        /// The key's device ID holds it and the control applied (or had already).
        case applied(deviceID: String)
        /// No device ID ever bound the key.
        case unknownKey
        /// The device that bound it holds another key now: nothing to block.
        case replaced(deviceID: String)
    }

    /// Blocks every call that presents App Attest evidence of `keyID` (the device ID it is bound to).
    package func blockKey(_ keyID: [UInt8], reason: String, stamp: Stamp) async throws(StoreError) -> KeyResult {
        guard let deviceID = try await owner(of: keyID) else { return .unknownKey }
        var set = Self.blockAttributes(reason: reason, stamp: stamp)
        set.append("\(name: "blocked_key_id") = \(value: .b(keyID))")
        let outcome = try await table.update(
            "control_block_key",
            key: DynamoAppAttestKeyStore.keyRow(deviceID),
            update: UpdateExpression(set: set),
            condition: "\(name: "key_id") = \(value: .b(keyID))",
            tokenAttribute: "control_write"
        )
        return outcome.succeeded ? .applied(deviceID: deviceID) : .replaced(deviceID: deviceID)
    }

    /// Lifts a key block.
    package func unblockKey(_ keyID: [UInt8]) async throws(StoreError) -> KeyResult {
        guard let deviceID = try await owner(of: keyID) else { return .unknownKey }
        let outcome = try await table.update(
            "control_unblock_key",
            key: DynamoAppAttestKeyStore.keyRow(deviceID),
            update: UpdateExpression(remove: (Self.blockNames + ["blocked_key_id"]).map { "\(name: $0)" }),
            condition: "\(name: "blocked_key_id") = \(value: .b(keyID))",
            tokenAttribute: "control_write"
        )
        return outcome.succeeded ? .applied(deviceID: deviceID) : .replaced(deviceID: deviceID)
    }

    /// `calls` more calls of `feature` for `deviceID` on `day` (the budget calendar's today).
    /// - Returns: the row's `granted` after the grant.
    package func grant(
        deviceID: String,
        feature: String,
        calls: Int,
        day: String,
        stamp: Stamp
    ) async throws(StoreError) -> Int {
        let outcome = try await table.update(
            "control_grant",
            key: DynamoAllowanceStore.key(.device(deviceID), feature, day),
            update: UpdateExpression(
                set: [
                    "\(name: Table.ttlAttribute) = \(value: .number(DayKeys.endOfDay(day) + 3 * 86_400))",
                    "\(name: "granted_by") = \(value: .s(stamp.actor))",
                ],
                add: [
                    "\(name: "count") \(value: .number(-Int64(calls)))", "\(name: "granted") \(value: .number(calls))",
                ]
            ),
            condition: nil,
            tokenAttribute: "control_write",
            returnValues: .allNew
        )
        return outcome.row?.count("granted") ?? calls
    }

    /// Every row of the device's partition (bounded: a device holds a profile, a key, a few live challenges and
    /// three days of allowance rows).
    package func rows(deviceID: String) async throws(StoreError) -> [Item] {
        var items: [Item] = []
        var start: Item?
        repeat {
            let query = Query(
                table: table.table,
                keyCondition: "\(name: "PK") = \(value: .s("DEVICE#\(deviceID)"))",
                exclusiveStartKey: start
            )
            let page = try await table.run("control_show") { deadline throws(DynamoDBError) in
                try await table.client.query(query, deadline: deadline)
            }
            items += page.items
            start = page.lastEvaluatedKey
        } while start != nil && items.count < 2_000
        return items
    }

    /// The device ID that bound `keyID` (`APPATTEST_KEY#{id}` / `OWNER`), nil when none did.
    func owner(of keyID: [UInt8]) async throws(StoreError) -> String? {
        let key = DynamoAppAttestKeyStore.ownerRow(keyID)
        let row = try await table.run("control_key_owner") { deadline throws(DynamoDBError) in
            try await table.client.getItem(table.table, key: key, deadline: deadline)
        }
        return row?["device"]?.stringValue
    }

    static let blockNames = ["blocked_reason", "blocked_by", "blocked_at"]

    static func blockAttributes(reason: String, stamp: Stamp) -> [DynamoExpression] {
        [
            "\(name: "blocked_reason") = \(value: .s(reason))",
            "\(name: "blocked_by") = \(value: .s(stamp.actor))",
            "\(name: "blocked_at") = \(value: .number(Int64(stamp.at.timeIntervalSince1970.rounded(.down))))",
        ]
    }
}
