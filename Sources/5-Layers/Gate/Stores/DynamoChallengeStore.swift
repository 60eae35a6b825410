internal import AttestCore
package import CivilTime
internal import DynamoDB
package import FoundationEssentials

/// Challenges (`DEVICE#{id}` / `ATTEST_CHALLENGE#{b64url}`) and profiles (`… / PROFILE`: first-seen day, tier) on the
/// table.
package struct DynamoChallengeStore: ChallengeStore, ProfileStore {
    let table: GateTable
    /// Challenge lifetime (`CHALLENGE_TTL_SECONDS`).
    let ttlSeconds: Int
    /// Challenges one device may be issued per UTC day outside the metered path.
    let dailyIssueLimit: Int
    /// The budget's calendar (`BUDGET_TIMEZONE`): `first_seen` is stamped in it, because the allowance
    /// compares it with today in that calendar. The issue count keeps UTC days.
    let calendar: LocalCalendar

    package init(table: GateTable, ttlSeconds: Int = 300, dailyIssueLimit: Int = 200, calendar: LocalCalendar = .utc) {
        self.table = table
        self.ttlSeconds = ttlSeconds
        self.dailyIssueLimit = dailyIssueLimit
        self.calendar = calendar
    }

    static func challengeKey(deviceID: String, challenge: [UInt8]) -> Item {
        GateTable.key("DEVICE#\(deviceID)", "ATTEST_CHALLENGE#\(Bytes.base64URL(challenge))")
    }

    package func issue(deviceID: String, replacingSpent: Bool, now: Date) async throws -> IssuedChallenge {
        let today = LocalCalendar.utc.day(at: now).iso
        if !replacingSpent {
            try await countIssue(deviceID: deviceID, today: today, firstSeen: calendar.day(at: now).iso)
        }
        let bytes = table.random.bytes(challengeByteCount)
        let nowSeconds = Int64(now.timeIntervalSince1970)
        let expiresAt = nowSeconds + Int64(ttlSeconds)
        var item = Self.challengeKey(deviceID: deviceID, challenge: bytes)
        item["expires_at"] = .number(expiresAt)
        item[Table.ttlAttribute] = .number(expiresAt)
        // Unconditional: a resend of this put writes the same fresh row again, which is harmless.
        _ = try await table.run("challenge_issue") { deadline throws(DynamoDBError) in
            try await table.client.putItem(
                PutItem(table: table.table, item: item, returnOldItemOnConditionFailure: false),
                deadline: deadline
            )
        }
        return IssuedChallenge(bytes: bytes, expiresAt: expiresAt)
    }

    package func countReplacement(deviceID: String, now: Date) async throws {
        try await countIssue(
            deviceID: deviceID,
            today: LocalCalendar.utc.day(at: now).iso,
            firstSeen: calendar.day(at: now).iso
        )
    }

    /// Counts one issue in the device's profile row, per UTC day, refusing past the limit. The day's
    /// count and the day it belongs to live in the row; a new day starts the count again. `firstSeen` is
    /// the day in the budget's calendar, recorded if the device was never seen.
    private func countIssue(deviceID: String, today: String, firstSeen: String) async throws {
        let key = GateTable.key("DEVICE#\(deviceID)", "PROFILE")
        for _ in 0..<2 {
            let sameDay = try await table.update(
                "challenge_issue_count",
                key: key,
                update: UpdateExpression(set: [
                    "\(name: "first_seen") = if_not_exists(\(name: "first_seen"), \(value: .s(firstSeen)))",
                    "\(name: "issued_count") = \(name: "issued_count") + \(value: .number(1))",
                ]),
                condition:
                    "\(name: "issued_day") = \(value: .s(today)) AND \(name: "issued_count") < \(value: .number(dailyIssueLimit))",
                tokenAttribute: "issue_write"
            )
            if sameDay.succeeded { return }
            if sameDay.row?["issued_day"]?.stringValue == today { throw ChallengeIssueError.tooMany }
            let newDay = try await table.update(
                "challenge_issue_count",
                key: key,
                update: UpdateExpression(set: [
                    "\(name: "first_seen") = if_not_exists(\(name: "first_seen"), \(value: .s(firstSeen)))",
                    "\(name: "issued_day") = \(value: .s(today))",
                    "\(name: "issued_count") = \(value: .number(1))",
                ]),
                condition:
                    "attribute_not_exists(\(name: "issued_day")) OR \(name: "issued_day") <> \(value: .s(today))",
                tokenAttribute: "issue_write"
            )
            if newDay.succeeded { return }
            // Another issue started the day between our two writes: count against it.
        }
        throw StoreError(GateReason.challengeIssueCountContended.slug)
    }

    package func spend(deviceID: String, challenge: [UInt8], now: Date) async throws -> Bool {
        // Every issued challenge is exactly 32 bytes: nothing else can be spendable, and checking first
        // keeps an oversized value from ever reaching the key-size limit.
        guard challenge.count == challengeByteCount else { return false }
        let outcome = try await table.update(
            "challenge_spend",
            key: Self.challengeKey(deviceID: deviceID, challenge: challenge),
            update: UpdateExpression(set: ["\(name: "spent_at") = \(value: .number(Int64(now.timeIntervalSince1970)))"]
            ),
            // attribute_exists(PK): UpdateItem would otherwise create a "spent" row for a challenge we
            // never issued. Expiry is part of the condition; TTL deletion only cleans up.
            condition:
                "attribute_exists(PK) AND attribute_not_exists(\(name: "spent_by")) AND \(name: "expires_at") > \(value: .number(Int64(now.timeIntervalSince1970)))",
            tokenAttribute: "spent_by"
        )
        return outcome.succeeded
    }

    package func profile(subject: Subject, today: String) async throws -> DeviceProfile {
        let key = GateTable.key(subject.partitionKey, "PROFILE")
        let outcome = try await table.update(
            "profile_first_seen",
            key: key,
            update: UpdateExpression(set: [
                "\(name: "first_seen") = if_not_exists(\(name: "first_seen"), \(value: .s(today)))"
            ]),
            condition: nil,
            tokenAttribute: "profile_write",
            returnValues: .allNew
        )
        // ALL_NEW (or the row a resend found) carries the tier too: no request of its own.
        guard let row = outcome.row, let profile = try DeviceProfile(row: row) else {
            return DeviceProfile(firstSeen: today)
        }
        return profile
    }
}
