internal import AttestCore
internal import DynamoDB

/// App Attest keys on the table: `DEVICE#{id}` / `ATTEST_KEY`, and `APPATTEST_KEY#{keyId}` / `OWNER`.
package struct DynamoAppAttestKeyStore: AppAttestKeyStore {
    let table: GateTable

    package init(table: GateTable) { self.table = table }

    static func keyRow(_ deviceID: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "ATTEST_KEY") }
    static func profileRow(_ deviceID: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "PROFILE") }
    static func ownerRow(_ keyId: [UInt8]) -> Item { GateTable.key("APPATTEST_KEY#\(Bytes.base64URL(keyId))", "OWNER") }

    package func lookup(deviceID: String) async throws -> (key: StoredAppAttestKey?, profile: DeviceProfile?) {
        let items = try await table.run("key_lookup") { deadline throws(DynamoDBError) in
            try await table.client.batchGetItem(
                table.table,
                keys: [Self.keyRow(deviceID), Self.profileRow(deviceID)],
                deadline: deadline
            )
        }
        var key: StoredAppAttestKey?
        var profile: DeviceProfile?
        for item in items {
            switch item["SK"]?.stringValue {
            case "ATTEST_KEY":
                guard let keyId = item["key_id"]?.bytesValue, let publicKey = item["public_key"]?.bytesValue,
                    let counter = item["counter"]?.intValue, let counterValue = UInt32(exactly: counter)
                else { throw StoreError(GateReason.keyRowMalformed.slug) }
                key = StoredAppAttestKey(
                    keyId: keyId,
                    publicKey: publicKey,
                    counter: counterValue,
                    environment: item["environment"]?.stringValue ?? "",
                    appId: item["app_id"]?.stringValue,
                    risk: Self.risk(item)
                )
                key?.blocked = item["blocked_key_id"]?.bytesValue == keyId
            case "PROFILE":
                profile = try DeviceProfile(row: item)
            default:
                break
            }
        }
        return (key, profile)
    }

    package func bind(deviceID: String, key: StoredAppAttestKey, receipt: [UInt8]) async throws -> KeyBinding? {
        // 1. Claim the key for this device ID; the first device to bind a key owns it for good.
        let owner = try await table.update(
            "key_owner",
            key: Self.ownerRow(key.keyId),
            update: UpdateExpression(set: [
                "\(name: "device") = if_not_exists(\(name: "device"), \(value: .s(deviceID)))"
            ]),
            condition: nil,
            tokenAttribute: "owner_write",
            returnValues: .allNew
        )
        guard owner.row?["device"]?.stringValue == deviceID else { return nil }

        // 2. Replace whatever other key the device ID had (or none). The right-hand side of SET reads the item
        //    as it was, so `replaced` receives the previous key id (or "none"), even when a resend finds our
        //    own write. The same key again is refused by the condition and handled in step 3, so its counter
        //    is never reset (a reset would let the key's old assertions count again).
        // 3. The same key again (re_registered): refresh what the attestation brought, keep the counter.
        //    A rebind between 2 and 3 sends us back to 2; a few rounds at most, then the bind is unconfirmed.
        for _ in 0..<3 {
            if let binding = try await replace(deviceID: deviceID, key: key, receipt: receipt) { return binding }
            if try await refresh(deviceID: deviceID, key: key, receipt: receipt) { return .reRegistered }
        }
        throw StoreError(GateReason.keyBindUnconfirmed.slug)
    }

    /// Step 2: bound or rebound, or nil when the row already holds this key.
    private func replace(deviceID: String, key: StoredAppAttestKey, receipt: [UInt8]) async throws -> KeyBinding? {
        var set: [DynamoExpression] = [
            "\(name: "replaced") = if_not_exists(\(name: "key_id"), \(value: .b([])))",
            "\(name: "key_id") = \(value: .b(key.keyId))",
            "\(name: "public_key") = \(value: .b(key.publicKey))",
            "\(name: "counter") = \(value: .number(Int64(key.counter)))",
            "\(name: "environment") = \(value: .s(key.environment))",
        ]
        if let appId = key.appId { set.append("\(name: "app_id") = \(value: .s(appId))") }
        if !receipt.isEmpty { set.append("\(name: "receipt") = \(value: .b(receipt))") }
        // A new key starts over: no metric, not-before or exchange day of the key it replaces.
        var remove: [DynamoExpression] = Self.riskAttributes.map { "\(name: $0)" }
        if key.risk.unverified {
            set.append("\(name: "receipt_unverified") = \(value: .bool(true))")
        } else {
            remove.append("\(name: "receipt_unverified")")
        }
        let outcome = try await table.update(
            "key_bind",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: set, remove: remove),
            condition: "attribute_not_exists(\(name: "key_id")) OR \(name: "key_id") <> \(value: .b(key.keyId))",
            tokenAttribute: "bind_write",
            returnValues: .allNew
        )
        guard outcome.succeeded else { return nil }
        guard let replaced = outcome.row?["replaced"]?.bytesValue else {
            throw StoreError(GateReason.keyBindUnconfirmed.slug)
        }
        // The condition kept this key out, so `replaced` is none or another key (a resend included).
        return replaced.isEmpty ? .bound : .rebound
    }

    /// Step 3: the row holds this key; false when it no longer does.
    private func refresh(deviceID: String, key: StoredAppAttestKey, receipt: [UInt8]) async throws -> Bool {
        var set: [DynamoExpression] = ["\(name: "environment") = \(value: .s(key.environment))"]
        if let appId = key.appId { set.append("\(name: "app_id") = \(value: .s(appId))") }
        if !receipt.isEmpty { set.append("\(name: "receipt") = \(value: .b(receipt))") }
        var remove: [DynamoExpression] = []
        if key.risk.unverified {
            set.append("\(name: "receipt_unverified") = \(value: .bool(true))")
        } else {
            remove.append("\(name: "receipt_unverified")")
        }
        let outcome = try await table.update(
            "key_refresh",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: set, remove: remove),
            condition: "\(name: "key_id") = \(value: .b(key.keyId))",
            tokenAttribute: "refresh_write"
        )
        return outcome.succeeded
    }

    package func advanceCounter(
        deviceID: String,
        keyId: [UInt8],
        to counter: UInt32,
        appId: String?
    ) async throws -> CounterAdvance {
        var set: [DynamoExpression] = ["\(name: "counter") = \(value: .number(Int64(counter)))"]
        if let appId { set.append("\(name: "app_id") = if_not_exists(\(name: "app_id"), \(value: .s(appId)))") }
        let outcome = try await table.update(
            "counter_advance",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: set),
            // Same key that verified (it may have been rebound meanwhile), strictly increasing.
            condition:
                "\(name: "key_id") = \(value: .b(keyId)) AND \(name: "counter") < \(value: .number(Int64(counter)))",
            tokenAttribute: "counter_write_id"
        )
        if outcome.succeeded { return .advanced }
        // The refusal returns the row as it is (ALL_OLD): the same key means its counter is at or above ours.
        guard let stored = outcome.row?["key_id"]?.bytesValue, stored == keyId else { return .keyReplaced }
        return .behind
    }
}
