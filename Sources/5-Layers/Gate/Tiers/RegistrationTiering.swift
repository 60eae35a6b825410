package import AttestCore
package import CivilTime
internal import DeviceCheck
package import FoundationEssentials

/// The tier step of `POST /v1/attest/keys` with `DEVICE_MARKS=on` (docs/appattest.md "Device marks"):
/// after the key is bound, the stored tier is read, then the mark (read only) and the fraud-risk signal
/// concurrently; `DeviceTierPolicy.atRegistration` combines them, bit 0 is written only when the tier to
/// record is `first`, and the tier is recorded with the mark's month.
package struct RegistrationTiering: Sendable {
    let marks: any DeviceMarks
    let tiers: any DeviceTierStore
    /// The budget calendar: `recordTier`'s `today`.
    let calendar: LocalCalendar
    /// `DEVICE_MARK_MONTHS`: a stored `first` whose mark is older is settled again (`firstExpired`).
    let markMonths: Int

    package init(
        marks: any DeviceMarks,
        tiers: any DeviceTierStore,
        calendar: LocalCalendar,
        markMonths: Int = DeviceMarkPolicy.defaultMonths
    ) {
        self.marks = marks
        self.tiers = tiers
        self.calendar = calendar
        self.markMonths = markMonths
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
        // The stored tier first: a store failure then costs no Apple call.
        let profile = try await tiers.storedProfile(deviceID: deviceID)
        // A `first` whose mark has expired is settled again, as if none were stored: the mark decides whether
        // this device still holds the free tier, and a clear one is claimed and renewed with this month.
        let expired = profile.map { DeviceTierPolicy.firstExpired($0, now: now, markMonths: markMonths) } ?? false
        let previous = expired ? nil : profile?.tier
        async let riskRead = risk()
        // A reinstall keeping its device ID keeps a settled tier: the mark it would read is its own, and
        // reading it would spend budget. A stored `repeat` never moves, so no mark is read for it either.
        let keeps = previous == .repeat || (heldKey && previous == .first)
        var mark: MarkReading? =
            keeps
            ? nil
            : await marks.read(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: deadline)
        let riskSignal = await riskRead

        var tier = DeviceTierPolicy.atRegistration(
            previous: previous,
            heldKey: heldKey,
            mark: mark?.signal ?? .off,
            risk: riskSignal,
            riskMax: riskMax
        )
        // An expired `first` is not demoted by a mark in force: the mark may be its own (Apple's month and ours
        // can differ at a month's edge). It stays an expired `first` (metered `unknown`) until the mark expires.
        if expired, tier == .repeat, riskSignal.tier(max: riskMax) != .repeat { tier = .unknown }
        // Bit 0 only for a `first` (docs/appattest.md "Device marks"): a device whose tier is `unknown` must not
        // find a mark of its own making when its tier is settled later.
        var marked: String?
        if tier == .first, mark?.signal == .clear, let deviceCheckToken {
            if let failure = await marks.claim(
                deviceCheckToken: deviceCheckToken,
                deviceID: deviceID,
                now: now,
                deadline: deadline
            ) {
                // Unclaimed, the free tier is not given: another ID on this device could claim it too.
                mark = MarkReading(.unavailable, .markUnavailable, detail: failure)
                tier = .unknown
            } else {
                marked = DeviceMarkPolicy.month(at: now).description
            }
        }
        let markSignal = mark?.signal ?? .off
        let riskTier = riskSignal.tier(max: riskMax)
        var fields: [String: JSONValue] = [:]
        if let detail = mark?.detail { fields["markDetail"] = .string(detail) }
        if case .metric(let value) = riskSignal, value > riskMax, let deviceCheckToken {
            // A flag outlives this device ID: bit 1 holds for every later ID on the device. A receipt our check
            // refused is no flag: it is this request's content, not Apple's word about the device.
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
            today: calendar.day(at: now).iso,
            marked: marked
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
        if riskTier == .repeat {
            return (risk == .unverified ? GateReason.riskUnverified : GateReason.riskFlagged).slug
        }
        let markTier = mark?.signal.tier ?? previous ?? .first
        if riskTier.severity > markTier.severity {
            return GateReason.riskUnavailable.slug
        }
        if heldKey, let previous, previous != .unknown, tier == previous { return GateReason.tierKept.slug }
        return mark?.reason.slug ?? GateReason.tierKept.slug
    }
}
