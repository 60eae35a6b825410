internal import AttestCore
internal import DynamoDB

/// Device tiers on the table: `tier`, `tier_reason` and the own-write token `tier_write` on the device ID's
/// `DEVICE#{id}` / `PROFILE` row, next to `first_seen` (docs/dynamodb.md, docs/gate.md "Device tiers").
package struct DynamoDeviceTierStore: DeviceTierStore {
    let table: GateTable

    package init(table: GateTable) { self.table = table }

    static func profileRow(_ deviceID: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "PROFILE") }

    package func storedProfile(deviceID: String) async throws -> DeviceProfile? {
        let row = try await table.run("tier_read") { deadline throws(DynamoDBError) in
            try await table.client.getItem(table.table, key: Self.profileRow(deviceID), deadline: deadline)
        }
        guard let row else { return nil }
        return try DeviceProfile(row: row)
    }

    package func recordTier(
        deviceID: String,
        tier: DeviceTier,
        reason: String,
        today: String,
        marked: String?
    ) async throws
        -> DeviceTier
    {
        let marked = tier == .first ? marked : nil
        var set: [DynamoExpression] = [
            "\(name: "tier") = \(value: .s(tier.rawValue))",
            "\(name: "tier_reason") = \(value: .s(reason))",
            "\(name: "first_seen") = if_not_exists(\(name: "first_seen"), \(value: .s(today)))",
        ]
        if let marked { set.append("\(name: "tier_marked") = \(value: .s(marked))") }
        // One conditional write: the condition is `DeviceTier.mayMove(from:marked:to:marked:)` over the
        // stored value, so two racing writers end as `mayMove` orders them, whichever lands first.
        let outcome = try await table.update(
            "tier_record",
            key: Self.profileRow(deviceID),
            update: UpdateExpression(set: set),
            condition: Self.mayMove(to: tier, marked: marked),
            tokenAttribute: "tier_write"
        )
        switch outcome {
        case .applied, .appliedByEarlierSend:
            // Ours is stored (a resend found its own token in the ALL_OLD row: the first send landed).
            return tier
        case .refused(let row):
            // The stored tier refused the move: it is what stands. The condition holds on a row without a
            // tier, so a refusal always returns one.
            guard let row, let stored = try DeviceProfile.tier(in: row) else {
                throw StoreError(GateReason.profileRowMalformed.slug)
            }
            return stored
        }
    }

    /// `DeviceTier.mayMove(from:marked:to:marked:)` as a condition on the stored `tier` and `tier_marked`.
    static func mayMove(to next: DeviceTier, marked: String? = nil) -> DynamoExpression {
        let absent: DynamoExpression = "attribute_not_exists(\(name: "tier"))"
        switch next {
        // An absent or `unknown` tier moves anywhere; `first` moves only to `repeat`; `repeat` never.
        case .repeat: return absent.or("\(name: "tier") <> \(value: .s(DeviceTier.repeat.rawValue))")
        case .first, .unknown:
            let open = absent.or("\(name: "tier") = \(value: .s(DeviceTier.unknown.rawValue))")
            guard let marked else { return open }
            // A `first` a mark made renews a `first` whose mark is older (or was never kept).
            let isFirst: DynamoExpression = "\(name: "tier") = \(value: .s(DeviceTier.first.rawValue))"
            let unmarked: DynamoExpression = "attribute_not_exists(\(name: "tier_marked"))"
            let older = isFirst.and(unmarked.or("\(name: "tier_marked") < \(value: .s(marked))"))
            return open.or(older)
        }
    }
}

extension DeviceProfile {
    /// The profile in a `PROFILE` row; nil without `first_seen`.
    /// - Throws: `StoreError` (`store.profile_row_malformed`) for a `tier` that is not one of ours.
    init?(row: Item) throws {
        guard let firstSeen = row["first_seen"]?.stringValue else { return nil }
        self.init(
            firstSeen: firstSeen,
            tier: try Self.tier(in: row),
            tierReason: row["tier_reason"]?.stringValue,
            tierMarked: row["tier_marked"]?.stringValue,
            blocked: row["blocked_reason"]?.stringValue
        )
    }

    /// The row's tier, nil when it has none.
    /// - Throws: `StoreError` (`store.profile_row_malformed`) for a value that is not a tier: never read as
    ///   one (a `first` must have been written as `first`).
    static func tier(in row: Item) throws -> DeviceTier? {
        guard let value = row["tier"] else { return nil }
        guard let text = value.stringValue, let tier = DeviceTier(rawValue: text) else {
            throw StoreError(GateReason.profileRowMalformed.slug)
        }
        return tier
    }
}
