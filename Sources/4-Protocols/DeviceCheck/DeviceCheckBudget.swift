package import AttestCore
package import FoundationEssentials

/// Who pays for one call to Apple: one unit of `deviceID`'s daily budget, spent after our own JWT is
/// signed and before the call (the two bits and the receipt exchange, docs/playintegrity.md).
package struct DeviceCheckCharge: Sendable {
    package let budget: any DeviceDailyBudget
    package let deviceID: String

    package init(budget: any DeviceDailyBudget, deviceID: String) {
        self.budget = budget
        self.deviceID = deviceID
    }
}

/// What stopped a call to Apple before it was sent (each client maps it to its own reason).
package enum AppleCallRefusal: Error, Hashable {
    /// Less than the client's minimum attempt was left of the deadline.
    case deadline
    /// The device ID's daily budget is spent.
    case budgetExhausted
    /// The budget's store failed.
    case budgetStoreFailed
}

extension DeviceCheckCharge {
    /// The order every call to Apple follows once our own JWT is signed: the deadline is checked, the
    /// charge (if any) spends its unit, and the deadline is checked again, so a call Apple never gets costs
    /// nothing and a call that costs a unit still has time to be made.
    /// - Returns: the time left for the call.
    package static func admit(
        _ charge: DeviceCheckCharge?,
        now: Date,
        deadline: Deadline,
        minimumAttempt: Duration
    ) async throws(AppleCallRefusal) -> Duration {
        guard deadline.remaining >= minimumAttempt else { throw .deadline }
        if let charge {
            let decision: DeviceBudgetDecision
            do {
                decision = try await charge.budget.spendOne(deviceID: charge.deviceID, now: now)
            } catch {
                throw .budgetStoreFailed
            }
            guard decision == .spent else { throw .budgetExhausted }
        }
        let remaining = deadline.remaining
        guard remaining >= minimumAttempt else { throw .deadline }
        return remaining
    }
}
