internal import AttestCore
package import CivilTime
internal import DeviceCheck
package import FoundationEssentials

/// Renews a `first` whose DeviceCheck mark has expired, on a metered call that carries a DeviceCheck token
/// (docs/gate.md "Device tiers", docs/appattest.md "Device marks"): the mark is read again and decides, as at
/// registration. A clear mark is claimed (bit 0 written, this month) and the `first` renewed with it; a mark
/// in force (another device ID on this phone claimed the free tier since, or a flag) is `repeat`. Anything
/// else records nothing and the call is metered as `unknown`.
///
/// One phone thus holds one usable `first` per `DEVICE_MARK_MONTHS`: an older device ID's `first` does not
/// outlive its mark, and a genuine user who keeps the same device ID renews it on the first call after it
/// expires.
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
    /// - Returns: the tier recorded (ours, or the one that refused the move), nil when the mark could not be
    ///   read or claimed (the call is metered as `unknown`).
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
        let today = calendar.day(at: now).iso
        switch mark.signal {
        case .clear:
            // `markSignal` wrote bit 0: the `first` is renewed with this month (`tier_marked`).
            let reason = GateReason.markRenewed.slug
            let stored = try await tiers.recordTier(
                deviceID: deviceID,
                tier: .first,
                reason: reason,
                today: today,
                marked: DeviceMarkPolicy.month(at: now).description
            )
            return RecordedTier(tier: stored, reason: stored == .first ? reason : GateReason.tierKept.slug)
        case .set:
            let stored = try await tiers.recordTier(
                deviceID: deviceID,
                tier: .repeat,
                reason: mark.reason,
                today: today
            )
            return RecordedTier(tier: stored, reason: mark.reason)
        case .missingToken, .unavailable, .off:
            return nil
        }
    }
}
