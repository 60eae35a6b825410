package import FoundationEssentials

/// The receipt state on a key's `DEVICE#{id}` / `ATTEST_KEY` row (docs/appattest.md, "The fraud-risk metric").
///
/// Contract: every write is conditional on the row still holding `keyId`, so a key rebound meanwhile is never
/// given the old key's receipt or metric; each carries an own-write token, so a resend after a lost answer
/// reports the write it made.
package protocol RiskReceiptStore: Sendable {
    /// Stores a verified `RECEIPT` receipt with its metric and not-before, stamps `day` as the day of the last
    /// exchange and clears `receipt_unverified`.
    /// - Returns: false when the row no longer holds `keyId`.
    /// - Throws: `StoreError`.
    func storeReceipt(
        deviceID: String,
        keyId: [UInt8],
        receipt: [UInt8],
        metric: Int,
        notBefore: Date,
        day: String
    ) async throws -> Bool

    /// Stamps `day` as the day of the last exchange (Apple answered 304, refused the receipt, or returned one
    /// our check refused): the key is not asked again that day.
    /// - Returns: false when the row no longer holds `keyId`.
    /// - Throws: `StoreError`.
    func stampExchange(deviceID: String, keyId: [UInt8], day: String) async throws -> Bool
}
