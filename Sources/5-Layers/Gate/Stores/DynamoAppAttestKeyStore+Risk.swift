internal import AttestCore
internal import DynamoDB
package import FoundationEssentials

/// The fraud-risk attributes of `DEVICE#{id}` / `ATTEST_KEY`: `receipt` (B), `receipt_unverified` (BOOL, only
/// when true), `risk_metric` (N), `risk_not_before` (N, epoch seconds), `risk_day` (S, UTC `YYYY-MM-DD`).
extension DynamoAppAttestKeyStore: RiskReceiptStore {
    /// Removed when a new key replaces the row's key: its metric, not-before and exchange day start over.
    static let riskAttributes = ["risk_metric", "risk_not_before", "risk_day"]

    /// The receipt state of a key row as `lookup` read it.
    static func risk(_ item: Item) -> StoredRisk {
        StoredRisk(
            receipt: item["receipt"]?.bytesValue.flatMap { $0.isEmpty ? nil : $0 },
            unverified: item["receipt_unverified"] == .bool(true),
            metric: item["risk_metric"]?.intValue.flatMap { Int(exactly: $0) },
            notBefore: item["risk_not_before"]?.intValue.map { Date(timeIntervalSince1970: TimeInterval($0)) },
            exchangedDay: item["risk_day"]?.stringValue
        )
    }

    package func storeReceipt(
        deviceID: String,
        keyId: [UInt8],
        receipt: [UInt8],
        metric: Int,
        notBefore: Date,
        day: String
    ) async throws -> Bool {
        let outcome = try await table.update(
            "risk_store",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(
                set: [
                    "\(name: "receipt") = \(value: .b(receipt))",
                    "\(name: "risk_metric") = \(value: .number(metric))",
                    "\(name: "risk_not_before") = \(value: .number(Int64(notBefore.timeIntervalSince1970.rounded(.down))))",
                    "\(name: "risk_day") = \(value: .s(day))",
                ],
                remove: ["\(name: "receipt_unverified")"]
            ),
            condition: "\(name: "key_id") = \(value: .b(keyId))",
            tokenAttribute: "risk_write"
        )
        return outcome.succeeded
    }

    package func stampExchange(deviceID: String, keyId: [UInt8], day: String) async throws -> Bool {
        let outcome = try await table.update(
            "risk_stamp",
            key: Self.keyRow(deviceID),
            update: UpdateExpression(set: ["\(name: "risk_day") = \(value: .s(day))"]),
            condition: "\(name: "key_id") = \(value: .b(keyId))",
            tokenAttribute: "risk_write"
        )
        return outcome.succeeded
    }
}
