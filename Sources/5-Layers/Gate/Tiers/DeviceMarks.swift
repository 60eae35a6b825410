package import AttestCore
package import DeviceCheck
package import FoundationEssentials

/// The two-bits calls the mark service makes: `DeviceCheckBitsClient` (a fake in tests).
package protocol TwoBitsCalls: Sendable {
    func query(
        deviceToken: String,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge?
    ) async throws(TwoBitsError) -> TwoBitsState

    func update(
        deviceToken: String,
        bit0: Bool?,
        bit1: Bool?,
        now: Date,
        deadline: Deadline,
        charge: DeviceCheckCharge?
    ) async throws(TwoBitsError)
}

extension DeviceCheckBitsClient: TwoBitsCalls {}

/// What the registration's tier step got from DeviceCheck's two bits.
package struct MarkReading: Sendable, Hashable {
    package let signal: MarkSignal
    /// The gate's slug for `tierReason` (`mark.clear`, `mark.set`, `mark.no_token`, `mark.unavailable`).
    package let reason: GateReason
    /// Apple's side of a failure (`devicecheck.bits_rate_limited`, …), for the log line only.
    package let detail: String?

    package init(_ signal: MarkSignal, _ reason: GateReason, detail: String? = nil) {
        self.signal = signal
        self.reason = reason
        self.detail = detail
    }
}

/// DeviceCheck's two bits as device marks (docs/appattest.md "Device marks"): bit 0 = a free tier was
/// given on this physical device, bit 1 = the device was flagged by App Attest's fraud-risk metric.
package protocol DeviceMarks: Sendable {
    /// Reads the physical device's mark, writing nothing: the caller decides the tier with the other signals
    /// and claims bit 0 (`claim`) only when the tier it records is `first`, so a device whose tier is `unknown`
    /// or `repeat` never reads a mark of its own making later. Never throws: every failure is a signal.
    /// - Parameters:
    ///   - deviceCheckToken: the body's `deviceCheckToken` (base64, already bounded), nil when absent.
    ///   - deviceID: the device ID whose daily DeviceCheck budget pays for each call.
    ///   - deadline: the invocation's; no call outlives it.
    /// - Returns: `.clear` for no mark or an expired one (bit 0 not yet written); `.set` for a mark in force;
    ///   `.missingToken` for no token or one Apple refuses (400); `.unavailable` for everything else (5xx, 429,
    ///   401, a timeout, the deadline, the budget spent or its store down, our JWT not signed).
    func read(deviceCheckToken: String?, deviceID: String, now: Date, deadline: Deadline) async -> MarkReading

    /// Claims the device's free tier: sets bit 0 (bit 1 left as Apple has it), stamping this month.
    /// - Returns: nil when Apple stored it, else the failure's slug (the tier is then `unknown`, never `first`).
    func claim(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String?

    /// Sets bit 1 (flagged), leaving bit 0 as Apple has it.
    /// - Returns: nil when Apple stored it, else the failure's slug.
    func flag(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String?
}

/// Bit 1 for a device the fraud-risk metric flagged on a metered call (the risk refresh).
package protocol DeviceFlagging: Sendable {
    /// Sets bit 1 (flagged) for the device of `deviceCheckToken`, paid from `deviceID`'s daily budget and
    /// bounded by `Deadline.current`. Never throws.
    /// - Returns: true when Apple stored it.
    func flag(deviceCheckToken: String, deviceID: String, now: Date) async -> Bool
}

/// The mark service: `query_two_bits` → `DeviceMarkPolicy.mark`; `update_two_bits` bit 0 when the caller
/// records `first` on a clear mark.
/// Every call to Apple is paid from the device ID's daily DeviceCheck budget (`DEVICECHECK_BUDGET_PER_DEVICE`)
/// after our JWT is signed, and bounded by the deadline (`DeviceCheckBitsClient`).
package struct DeviceMarkService: DeviceMarks, DeviceFlagging {
    let bits: any TwoBitsCalls
    let budget: any DeviceDailyBudget
    /// `DEVICE_MARK_MONTHS`: a mark older than this counts as cleared.
    let markMonths: Int

    package init(bits: any TwoBitsCalls, budget: any DeviceDailyBudget, markMonths: Int) {
        self.bits = bits
        self.budget = budget
        self.markMonths = markMonths
    }

    package func read(deviceCheckToken: String?, deviceID: String, now: Date, deadline: Deadline) async -> MarkReading {
        guard let token = deviceCheckToken else { return MarkReading(.missingToken, .markNoToken) }
        let charge = DeviceCheckCharge(budget: budget, deviceID: deviceID)
        let state: TwoBitsState
        do {
            state = try await bits.query(deviceToken: token, now: now, deadline: deadline, charge: charge)
        } catch {
            // A token Apple refuses is request content: it may never yield more than a missing one.
            return error.reason.blamesToken
                ? MarkReading(.missingToken, .markNoToken, detail: error.reason.slug)
                : MarkReading(.unavailable, .markUnavailable, detail: error.reason.slug)
        }
        guard DeviceMarkPolicy.mark(state, now: now, markMonths: markMonths) == .first else {
            return MarkReading(.set, .markSet)
        }
        return MarkReading(.clear, .markClear)
    }

    package func claim(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String? {
        do {
            // Bit 1 is left as Apple has it: an expired flag is renewed with the month, not erased.
            try await bits.update(
                deviceToken: deviceCheckToken,
                bit0: true,
                bit1: nil,
                now: now,
                deadline: deadline,
                charge: DeviceCheckCharge(budget: budget, deviceID: deviceID)
            )
            return nil
        } catch {
            // Unclaimed, the free tier is not given: another ID on this device could claim it too.
            return error.reason.slug
        }
    }

    package func flag(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> String? {
        do {
            try await bits.update(
                deviceToken: deviceCheckToken,
                bit0: nil,
                bit1: true,
                now: now,
                deadline: deadline,
                charge: DeviceCheckCharge(budget: budget, deviceID: deviceID)
            )
            return nil
        } catch {
            return error.reason.slug
        }
    }

    package func flag(deviceCheckToken: String, deviceID: String, now: Date) async -> Bool {
        await flag(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: Deadline.forCall())
            == nil
    }
}
