package import FoundationEssentials

/// One device ID's daily budget of calls to a provider that bills us per call: Play Integrity's decodes
/// (`PLAY_DECODE_BUDGET_PER_DEVICE`, default 30) and Apple's DeviceCheck queries and receipt exchanges
/// (`DEVICECHECK_BUDGET_PER_DEVICE`, default 30). A caller that heats one device ID spends only that ID's
/// budget, never the project's quota.
///
/// The gate implements it on the table (docs/api.md §6: `DEVICE#{id}` / `PLAY_DECODE#{day}` and
/// `DEVICECHECK#{day}`, `DynamoDeviceDailyBudget`) with a conditional write carrying an own-write token, so an
/// SDK resend never double-spends and never refuses itself. A verifier spends one unit only after its own
/// credential was obtained and before the provider call, so our credential failures never cost a device its
/// budget.
package protocol DeviceDailyBudget: Sendable {
    /// Spends one call for `deviceID` on the day containing `now`.
    /// - Returns: `.spent`, or `.exhausted` when the day's budget is gone (the check is then `rejected`).
    /// - Throws: any store error (the check is then `unavailable`).
    func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision
}

/// The answer of `DeviceDailyBudget.spendOne`.
package enum DeviceBudgetDecision: Sendable, Hashable {
    case spent
    case exhausted
}
