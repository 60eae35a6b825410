internal import AttestCore
internal import DynamoDB

/// `attestgate device show`: a device's partition as an operator reads it. Only what the rows hold: tier and its
/// reason, the block, the App Attest key (ID, counter, risk metric, whether blocked), today's allowance use per
/// feature and the challenges issued today. Never a challenge, a receipt or a public key.
enum DeviceReport {
    static func render(_ rows: [Item], context: ControlContext) -> JSONValue {
        var out: [String: JSONValue] = ["today": .string(context.today)]
        var allowances: [JSONValue] = []
        var liveChallenges = 0
        for row in rows {
            guard let sk = row["SK"]?.stringValue else { continue }
            if sk == "PROFILE" {
                out["device"] = row["PK"]?.stringValue.map { .string(String($0.dropFirst("DEVICE#".count))) }
                out["firstSeen"] = string(row, "first_seen")
                out["tier"] = string(row, "tier") ?? .string("none")
                out["tierReason"] = string(row, "tier_reason")
                out["tierMarked"] = string(row, "tier_marked")
                out["blocked"] = block(row)
                if row["issued_day"]?.stringValue == context.utcToday {
                    out["challengesIssuedToday"] = .int(number(row, "issued_count"))
                }
            } else if sk == "ATTEST_KEY" {
                let keyID = row["key_id"]?.bytesValue ?? []
                var key: [String: JSONValue] = [
                    "keyId": .string(Bytes.base64(keyID)),
                    "counter": .int(row["counter"]?.intValue ?? 0),
                    "environment": string(row, "environment") ?? .null,
                    "receiptUnverified": .bool(row["receipt_unverified"] == .bool(true)),
                ]
                key["appId"] = string(row, "app_id")
                key["riskMetric"] = row["risk_metric"]?.intValue.map(JSONValue.int)
                let blocked = row["blocked_key_id"]?.bytesValue == keyID && !keyID.isEmpty
                key["blocked"] = blocked ? block(row) : .null
                out["key"] = .object(key.compactMapValues { $0 })
            } else if sk.hasPrefix("QUOTA#"), sk.hasSuffix("#" + context.today) {
                let feature = String(sk.dropFirst("QUOTA#".count).dropLast(context.today.count + 1))
                let granted = number(row, "granted")
                allowances.append(
                    .object([
                        "feature": .string(feature), "used": .int(number(row, "count") + granted),
                        "granted": .int(granted),
                    ])
                )
            } else if sk.hasPrefix("ATTEST_CHALLENGE#") {
                liveChallenges += 1
            }
        }
        if out["device"] == nil { out["known"] = .bool(false) }
        out["allowancesToday"] = .array(allowances)
        out["challengeRows"] = .int(Int64(liveChallenges))
        return .object(out.compactMapValues { $0 == .null ? nil : $0 })
    }

    private static func number(_ row: Item, _ name: String) -> Int64 { row[name]?.intValue ?? 0 }

    private static func string(_ row: Item, _ name: String) -> JSONValue? {
        row[name]?.stringValue.map(JSONValue.string)
    }

    private static func block(_ row: Item) -> JSONValue {
        guard let reason = row["blocked_reason"]?.stringValue else { return .null }
        return .object([
            "reason": .string(reason),
            "by": .string(row["blocked_by"]?.stringValue ?? ""),
            "at": .int(row["blocked_at"]?.intValue ?? 0),
        ])
    }
}
