internal import AttestCore
package import CivilTime
internal import DeviceCheck
package import FoundationEssentials

/// Renews a `first` whose DeviceCheck mark has expired, on a metered call that carries a DeviceCheck token
/// (docs/gate.md "Device tiers", docs/appattest.md "Device marks"): the mark is read again. A clear mark is
/// claimed (bit 0 written, this month) and the `first` renewed with it. Anything else records nothing and the
/// call is metered as `unknown`: a mark in force may be another device ID's claim on this phone, but it may
/// also be this device ID's own (Apple stamps its month, we stamp ours: they can differ at a month's edge, and
/// a `first` from before `tier_marked` counts from its `first_seen`), so it never writes `repeat`; the
/// `first` stays expired until the mark at Apple expires too, then renews.
///
/// One phone thus holds one usable `first` per `DEVICE_MARK_MONTHS`: an older device ID's `first` does not
/// outlive its mark, and a genuine user who keeps the same device ID renews it on the first call after the
/// mark expires.
package struct MarkRenewal: Sendable {
    let marks: any RefreshMarks
    let tiers: any DeviceTierStore
    /// The budget calendar: `recordTier`'s `today`.
    let calendar: LocalCalendar
    /// The longest a metered call waits for Apple (as the risk refresh).
    package var timeout: Duration = .seconds(1)

    package init(marks: any RefreshMarks, tiers: any DeviceTierStore, calendar: LocalCalendar) {
        self.marks = marks
        self.tiers = tiers
        self.calendar = calendar
    }

    /// Reads the mark for `deviceID`'s expired `first` and records what it says.
    /// - Returns: the tier recorded (ours, or the one that refused the move), nil when the mark is in force or
    ///   could not be read or claimed (the call is metered as `unknown`).
    /// - Throws: `StoreError` from the tier write (the call fails closed, like any store failure).
    package func renew(deviceID: String, deviceCheckToken: String, now: Date) async throws -> RecordedTier? {
        let capped = Deadline.after(timeout)
        let deadline = Deadline.current.map { min(capped, $0) } ?? capped
        let mark = await marks.markSignal(
            deviceCheckToken: deviceCheckToken,
            deviceID: deviceID,
            now: now,
            deadline: deadline
        )
        // `markSignal` wrote bit 0 on a clear mark: the `first` is renewed with this month (`tier_marked`).
        guard mark.signal == .clear else { return nil }
        let reason = GateReason.markRenewed.slug
        let stored = try await tiers.recordTier(
            deviceID: deviceID,
            tier: .first,
            reason: reason,
            today: calendar.day(at: now).iso,
            marked: DeviceMarkPolicy.month(at: now).description
        )
        return RecordedTier(tier: stored, reason: stored == .first ? reason : GateReason.tierKept.slug)
    }
}
