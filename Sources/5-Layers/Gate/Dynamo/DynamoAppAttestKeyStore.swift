internal import AttestCore
internal import DynamoDB

/// App Attest keys on the table: `DEVICE#{id}` / `ATTEST_KEY`, and `APPATTEST_KEY#{keyId}` / `OWNER`.
package struct DynamoAppAttestKeyStore: AppAttestKeyStore {
    let table: GateTable

    package init(table: GateTable) { self.table = table }

    static func keyRow(_ deviceID: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "ATTEST_KEY") }
    static func profileRow(_ deviceID: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "PROFILE") }
    static func ownerRow(_ keyId: [UInt8]) -> Item { GateTable.key("APPATTEST_KEY#\(Bytes.base64URL(keyId))", "OWNER") }

    package func lookup(deviceID: String) async throws -> (key: StoredAppAttestKey?, firstSeen: String?) {
        let items = try await table.run("key_lookup") { deadline throws(DynamoDBError) in
            try await table.client.batchGetItem(
                table.table,
                keys: [Self.keyRow(deviceID), Self.profileRow(deviceID)],
                deadline: deadline
            )
        }
        var key: StoredAppAttestKey?
        var firstSeen: String?
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
                    environment: item["environment"]?.stringValue ?? ""
                )
            case "PROFILE":
                firstSeen = item["first_seen"]?.stringValue
            default:
                break
            }
        }
        return (key, firstSeen)
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

        // 2. Replace whatever key the device ID had. The right-hand side of SET reads the item as it was,
        //    so `replaced` receives the previous key id (or "none"), even when a resend finds our own write.
        var set: [DynamoExpression] = [
            "\(name: "replaced") = if_not_exists(\(name: "key_id"), \(value: .b([])))",
            "\(name: "key_id") = \(value: .b(key.keyId))",
            "\(name: "public_key") = \(value: .b(key.publicKey))",
            "\(name: "counter") = \(value: .number(Int64(key.counter)))",
            "\(name: "environment") = \(value: .s(key.environment))",
        ]
        if !receipt.isEmpty { set.append("\(name: "receipt") = \(value: .b(receipt))") }
        let outcome = try await table.update(
            "key_bind",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: set),
            condition: nil,
            tokenAttribute: "bind_write",
            returnValues: .allNew
        )
        guard let replaced = outcome.row?["replaced"]?.bytesValue else {
            throw StoreError(GateReason.keyBindUnconfirmed.slug)
        }
        if replaced.isEmpty { return .bound }
        return replaced == key.keyId ? .reRegistered : .rebound
    }

    package func advanceCounter(deviceID: String, keyId: [UInt8], to counter: UInt32) async throws -> Bool {
        let outcome = try await table.update(
            "counter_advance",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: ["\(name: "counter") = \(value: .number(Int64(counter)))"]),
            // Same key that verified (it may have been rebound meanwhile), strictly increasing.
            condition:
                "\(name: "key_id") = \(value: .b(keyId)) AND \(name: "counter") < \(value: .number(Int64(counter)))",
            tokenAttribute: "counter_write_id"
        )
        return outcome.succeeded
    }
}
