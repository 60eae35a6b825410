package import FoundationEssentials

/// One device ID's daily allowance of decode calls (`PLAY_DECODE_BUDGET_PER_DEVICE`, default 30).
///
/// The gate implements it on the table (docs/api.md §6: `DEVICE#{id}` / `PLAY_DECODE#{day}`) with a
/// conditional write carrying an own-write token, so an SDK resend never double-spends and never refuses
/// itself. The verifier spends one unit only after our own access token was obtained and before the
/// decode call, so our credential failures never cost a device its budget.
package protocol DecodeBudget: Sendable {
    /// Spends one decode for `deviceID` on the day containing `now`.
    /// - Returns: `.spent`, or `.exhausted` when the day's budget is gone (the check is then `rejected`).
    /// - Throws: any store error (the check is then `unavailable`).
    func spendOne(deviceID: String, now: Date) async throws -> DecodeBudgetDecision
}

/// The answer of `DecodeBudget.spendOne`.
package enum DecodeBudgetDecision: Sendable, Hashable {
    case spent
    case exhausted
}
