package import AttestCore
package import CivilTime
internal import Crypto
internal import DeviceCheck
package import FoundationEssentials

/// What the metered refresh needs of the mark service (DeviceCheck's two bits, docs/appattest.md "Device
/// marks"): bit 1 for a flagged device, and the mark that settles an `unknown` tier.
package protocol RefreshMarks: Sendable {
    /// Reads the physical device's mark, claiming bit 0 when it is clear: for a caller that records `first`
    /// on a clear mark (the metric is already verified at most the maximum), so bit 0 still goes only with a
    /// `first`. A claim that fails is `.unavailable`.
    /// - Returns: the signal and its `tierReason` slug (`mark.*`).
    func markSignal(
        deviceCheckToken: String,
        deviceID: String,
        now: Date,
        deadline: Deadline
    ) async -> (signal: MarkSignal, reason: String)

    /// Sets bit 1 (flagged). - Returns: whether Apple stored it.
    func flagDevice(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> Bool
}

/// The daily refresh of the fraud-risk metric, inline on a metered call (docs/appattest.md "The fraud-risk
/// metric"): only the key row `lookup` already read decides whether it is due, so a call that is not due
/// costs nothing.
package protocol RiskRefreshing: Sendable {
    /// Whether `key`'s receipt is due for an exchange at `now` (no I/O).
    func isDue(_ key: StoredAppAttestKey, now: Date) -> Bool

    /// Exchanges the stored receipt within the refresh timeout and records what it changes.
    /// - Parameters:
    ///   - storedTier: the device ID's tier as the key lookup read it (nil: none stored).
    ///   - deviceCheckToken: the call's `X-Device-Check-Token`, for bit 1 (and a settling mark).
    /// - Returns: the tier recorded (`MeteredCall` meters this call by it), nil when none was.
    func refresh(
        deviceID: String,
        key: StoredAppAttestKey,
        storedTier: DeviceTier?,
        deviceCheckToken: String?,
        now: Date
    ) async -> RecordedTier?
}

/// `RiskRefreshing` with the receipt exchange, the tier store and the mark service.
///
/// - A new metric above `RISK_METRIC_MAX` → `repeat` (reason `risk.flagged`), and bit 1 when the call carries
///   a DeviceCheck token.
/// - A verified metric at most `RISK_METRIC_MAX` on a device ID whose stored tier is `unknown` settles it
///   when the call carries a DeviceCheck token: the mark decides, as at registration (bit 0 claimed on a clear
///   mark, kept as `tier_marked`). Without a token the tier stays `unknown` (request content never yields
///   `first`).
/// - A verified metric at most `RISK_METRIC_MAX` on a device ID with no stored tier (a key registered before
///   marks were turned on) records `first` (`tier.legacy_key`), as it is metered: turning marks on never
///   demotes the installed base (docs/gate.md "Device tiers").
package struct ReceiptRiskRefresh: RiskRefreshing {
    let metric: ReceiptRiskMetric
    let tiers: any DeviceTierStore
    let marks: (any RefreshMarks)?
    /// The budget calendar: `recordTier`'s `today`.
    let calendar: LocalCalendar
    let logger: Logger
    /// The longest a metered call waits for Apple.
    package var timeout: Duration = .seconds(1)

    package init(
        metric: ReceiptRiskMetric,
        tiers: any DeviceTierStore,
        marks: (any RefreshMarks)?,
        calendar: LocalCalendar,
        logger: Logger
    ) {
        self.metric = metric
        self.tiers = tiers
        self.marks = marks
        self.calendar = calendar
        self.logger = logger
    }

    package func isDue(_ key: StoredAppAttestKey, now: Date) -> Bool {
        let risk = key.risk
        guard risk.receipt != nil, risk.exchangedDay != ReceiptRiskMetric.day(now) else { return false }
        // No verified receipt yet (our check refused the ATTEST one, or Apple failed at registration).
        guard !risk.unverified, risk.metric != nil, let notBefore = risk.notBefore else { return true }
        return notBefore <= now
    }

    /// Each call to Apple on the metered path: at most `timeout`, never into the margin kept for our answer.
    func refreshDeadline() -> Deadline {
        let capped = Deadline.after(timeout)
        guard let current = Deadline.current else { return capped }
        return min(capped, metric.bounded(current))
    }

    package func refresh(
        deviceID: String,
        key: StoredAppAttestKey,
        storedTier: DeviceTier?,
        deviceCheckToken: String?,
        now: Date
    ) async -> RecordedTier? {
        guard let receipt = key.risk.receipt, let publicKey = try? ECPublicKey(derOrX962: key.publicKey) else {
            return nil
        }
        let outcome = await metric.exchange(
            deviceID: deviceID,
            keyId: key.keyId,
            publicKey: publicKey,
            credentialCertificateDER: nil,
            receipt: receipt,
            now: now,
            deadline: refreshDeadline()
        )
        let device = Subject.device(deviceID).logSuffix
        guard case .verified(let value, _) = outcome else {
            var fields: [String: JSONValue] = ["device": .string(device)]
            if case .failed(let reason) = outcome { fields["reason"] = .string(reason) }
            logger.info(outcome == .notModified ? "risk receipt not modified" : "risk refresh failed", fields)
            return nil
        }
        logger.info("risk metric refreshed", ["device": .string(device), "riskMetric": .int(Int64(value))])
        let today = calendar.day(at: now).iso
        do {
            if value > metric.metricMax {
                let stored = try await tiers.recordTier(
                    deviceID: deviceID,
                    tier: .repeat,
                    reason: GateReason.riskFlagged.slug,
                    today: today
                )
                if let deviceCheckToken, let marks {
                    let flagged = await marks.flagDevice(
                        deviceCheckToken: deviceCheckToken,
                        deviceID: deviceID,
                        now: now,
                        deadline: refreshDeadline()
                    )
                    if !flagged { logger.warning("risk flag not stored at Apple", ["device": .string(device)]) }
                }
                logger.warning(
                    "device flagged by the risk metric",
                    ["device": .string(device), "tier": .string(stored.rawValue)]
                )
                return RecordedTier(tier: stored, reason: GateReason.riskFlagged.slug)
            }
            switch storedTier {
            case nil:
                // A legacy key: settled as it is metered, through the same conditional write.
                let stored = try await tiers.recordTier(
                    deviceID: deviceID,
                    tier: .first,
                    reason: GateReason.tierLegacyKey.slug,
                    today: today
                )
                logger.info("legacy key tier settled by a verified receipt", ["tier": .string(stored.rawValue)])
                return RecordedTier(tier: stored, reason: GateReason.tierLegacyKey.slug)
            case .unknown?:
                return try await settle(deviceID: deviceID, metric: value, deviceCheckToken: deviceCheckToken, now: now)
            case .first?, .repeat?:
                return nil
            }
        } catch {
            logger.warning("risk tier store failed", ["reason": .string(MeteredCall.slug(error))])
            return nil
        }
    }

    /// A verified metric at most the maximum on an `unknown` tier: settled by the mark when a token is at hand.
    private func settle(
        deviceID: String,
        metric value: Int,
        deviceCheckToken: String?,
        now: Date
    ) async throws
        -> RecordedTier?
    {
        guard let deviceCheckToken, let marks else { return nil }
        let mark = await marks.markSignal(
            deviceCheckToken: deviceCheckToken,
            deviceID: deviceID,
            now: now,
            deadline: refreshDeadline()
        )
        let tier = DeviceTierPolicy.atRegistration(
            previous: .unknown,
            heldKey: false,
            mark: mark.signal,
            risk: .metric(value),
            riskMax: metric.metricMax
        )
        guard tier != .unknown else { return nil }
        let stored = try await tiers.recordTier(
            deviceID: deviceID,
            tier: tier,
            reason: mark.reason,
            today: calendar.day(at: now).iso,
            // `markSignal` wrote bit 0 on a clear mark: the `first` expires with it.
            marked: mark.signal == .clear ? DeviceMarkPolicy.month(at: now).description : nil
        )
        logger.info("device tier settled by a verified receipt", ["tier": .string(stored.rawValue)])
        return RecordedTier(tier: stored, reason: mark.reason)
    }
}

extension DeviceMarkService: RefreshMarks {
    package func markSignal(
        deviceCheckToken: String,
        deviceID: String,
        now: Date,
        deadline: Deadline
    ) async -> (signal: MarkSignal, reason: String) {
        let reading = await read(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: deadline)
        guard reading.signal == .clear else { return (reading.signal, reading.reason.slug) }
        guard await claim(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: deadline) == nil
        else { return (.unavailable, GateReason.markUnavailable.slug) }
        return (reading.signal, reading.reason.slug)
    }

    package func flagDevice(deviceCheckToken: String, deviceID: String, now: Date, deadline: Deadline) async -> Bool {
        await flag(deviceCheckToken: deviceCheckToken, deviceID: deviceID, now: now, deadline: deadline) == nil
    }
}
