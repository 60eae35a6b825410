package import AttestCore
package import CivilTime
package import FoundationEssentials

/// The tier step of `POST /v1/attest/keys` with `DEVICE_MARKS=on` (docs/appattest.md "Device marks"):
/// after the key is bound, the stored tier is read, then the mark and the fraud-risk signal concurrently;
/// `DeviceTierPolicy.atRegistration` combines them and the tier is recorded.
package struct RegistrationTiering: Sendable {
    let marks: any DeviceMarks
    let tiers: any DeviceTierStore
    /// The budget calendar: `recordTier`'s `today`.
    let calendar: LocalCalendar

    package init(marks: any DeviceMarks, tiers: any DeviceTierStore, calendar: LocalCalendar) {
        self.marks = marks
        self.tiers = tiers
        self.calendar = calendar
    }

    /// What the step stored and why.
    package struct Outcome: Sendable, Hashable {
        /// The tier stored after the write (ours, or the one that refused the move).
        package let tier: DeviceTier
        /// The bounded slug on the log line (`mark.*`, `risk.*`, `tier.kept`).
        package let reason: String
        /// A signal was unavailable (counted in the `unavailable` metric).
        package let unavailable: Bool
        /// Log-only details: Apple's failure slugs.
        package let fields: [String: JSONValue]
    }

    /// Runs the step for a bound key.
    /// - Parameters:
    ///   - risk: reads the fraud-risk signal (the receipt exchange); started after the stored tier is read,
    ///     concurrently with the mark. Never throws: a failure is `.unavailable`.
    ///   - riskMax: `RISK_METRIC_MAX`.
    /// - Throws: `StoreError` when the tier cannot be read or written (the key stays bound; a retry
    ///   re-registers and runs the step again).
    package func settle(
        deviceID: String,
        deviceCheckToken: String?,
        binding: KeyBinding,
        risk: @escaping @Sendable () async -> RiskSignal,
        riskMax: Int,
        now: Date,
        deadline: Deadline
    ) async throws -> Outcome {
        let heldKey = binding != .bound
        // The stored tier first: a store failure then costs no Apple call and claims no bit 0, so the
        // client's retry (which re-registers) does not read a mark of its own making.
        let previous = try await tiers.storedTier(deviceID: deviceID)
        async let riskRead = risk()
        // A reinstall keeping its device ID keeps a settled tier: the mark it would read is its own, and
        // reading it would spend budget (and could claim bit 0 for a `repeat` ID). A stored `repeat` never
        // moves, so no mark is read for it either.
        let keeps = previous == .repeat || (heldKey && previous == .first)
        let mark: MarkReading? =
            keeps
            ? nil
            : await marks.read(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: deadline)
        let riskSignal = await riskRead

        let markSignal = mark?.signal ?? .off
        let tier = DeviceTierPolicy.atRegistration(
            previous: previous,
            heldKey: heldKey,
            mark: markSignal,
            risk: riskSignal,
            riskMax: riskMax
        )
        let riskTier = riskSignal.tier(max: riskMax)
        var fields: [String: JSONValue] = [:]
        if let detail = mark?.detail { fields["markDetail"] = .string(detail) }
        if riskTier == .repeat, let deviceCheckToken {
            // A flag outlives this device ID: bit 1 holds for every later ID on the device.
            if let failure = await marks.flag(
                deviceCheckToken: deviceCheckToken,
                deviceID: deviceID,
                now: now,
                deadline: deadline
            ) {
                fields["flagDetail"] = .string(failure)
            }
        }
        let reason = Self.reason(
            tier: tier,
            heldKey: heldKey,
            previous: previous,
            mark: mark,
            risk: riskSignal,
            riskTier: riskTier
        )
        let stored = try await tiers.recordTier(
            deviceID: deviceID,
            tier: tier,
            reason: reason,
            today: calendar.day(at: now).iso
        )
        return Outcome(
            tier: stored,
            reason: stored == tier ? reason : GateReason.tierKept.slug,
            unavailable: markSignal == .unavailable || riskSignal == .unavailable,
            fields: fields
        )
    }

    /// The slug of the signal that decided `tier`: the most restrictive one.
    static func reason(
        tier: DeviceTier,
        heldKey: Bool,
        previous: DeviceTier?,
        mark: MarkReading?,
        risk: RiskSignal,
        riskTier: DeviceTier
    ) -> String {
        if riskTier == .repeat { return "risk.flagged" }
        let markTier = mark?.signal.tier ?? previous ?? .first
        if riskTier.severity > markTier.severity {
            return risk == .unverified ? "risk.unverified" : "risk.unavailable"
        }
        if heldKey, let previous, previous != .unknown, tier == previous { return GateReason.tierKept.slug }
        return mark?.reason.slug ?? GateReason.tierKept.slug
    }
}
