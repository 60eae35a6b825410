package import AttestCore
internal import CivilTime
package import FoundationEssentials

/// The guard for Google's daily decode quota, shared by every Android guest (10,000 a day per Cloud
/// project by default; it resets at midnight Pacific time).
///
/// Past `PLAY_DECODE_DAILY_SOFT_CAP` further Play checks are `unavailable` instead of spending the last
/// of the quota; a warning is logged once a day at 80 % of the cap. `SoftCapDecodeQuotaGuard` is the
/// implementation over a `DecodeQuotaStore`; tests may inject their own.
package protocol DecodeQuotaGuard: Sendable {
    /// Counts one decode against the day containing `now`, unless the cap is reached.
    func admitDecode(now: Date) async -> DecodeQuotaDecision
}

/// The answer of `DecodeQuotaGuard.admitDecode`.
package enum DecodeQuotaDecision: Sendable, Hashable {
    case admitted
    case capReached
    case storeFailed
}

/// The counting store behind `SoftCapDecodeQuotaGuard` (the gate implements it on the table, e.g.
/// `PLAY_DECODE_QUOTA#{day}` / `TOTAL`).
package protocol DecodeQuotaStore: Sendable {
    /// Atomically adds one to `day`'s count unless the count already reached `limit`
    /// (`ADD count 1` with the condition `count < limit`).
    /// - Returns: the count after the increment and whether the day's warning was already claimed, or
    ///   `.limitReached`.
    /// - Throws: any store error.
    func incrementDecodeCount(day: String, limit: Int) async throws -> DecodeQuotaCount

    /// Marks `day`'s warning as sent. True for exactly one caller per day (a conditional write).
    func claimWarning(day: String) async throws -> Bool
}

/// The answer of `DecodeQuotaStore.incrementDecodeCount`.
package enum DecodeQuotaCount: Sendable, Hashable {
    case counted(count: Int, warned: Bool)
    case limitReached
}

/// The pure decision: admit or not, and whether to claim the day's warning.
package struct DecodeSoftCap: Sendable, Hashable {
    /// `PLAY_DECODE_DAILY_SOFT_CAP` (default 9,000 of Google's 10,000).
    package let softCap: Int
    /// The count at which the once-a-day warning is due: 80 % of the cap (`WarningThreshold`).
    package var warningThreshold: Int { WarningThreshold.of(softCap) }

    package init(softCap: Int) { self.softCap = max(0, softCap) }

    package struct Decision: Sendable, Hashable {
        package var admit: Bool
        package var claimWarning: Bool
    }

    package func decide(_ count: DecodeQuotaCount) -> Decision {
        switch count {
        case .limitReached:
            return Decision(admit: false, claimWarning: false)
        case .counted(let count, let warned):
            return Decision(admit: count <= softCap, claimWarning: !warned && count >= warningThreshold)
        }
    }
}

/// `DecodeQuotaGuard` over a `DecodeQuotaStore`, counting per Pacific-time day.
package struct SoftCapDecodeQuotaGuard: DecodeQuotaGuard {
    private let store: any DecodeQuotaStore
    private let cap: DecodeSoftCap
    private let logger: Logger
    private let calendar: LocalCalendar

    package init(store: any DecodeQuotaStore, softCap: Int, logger: Logger) {
        self.store = store
        self.cap = DecodeSoftCap(softCap: softCap)
        self.logger = logger
        // Google's quota day; the table in ZoneTable knows the zone's POSIX rule.
        self.calendar = (try? LocalCalendar(zone: "America/Los_Angeles")) ?? .utc
    }

    /// The Pacific-time day containing `now`, `YYYY-MM-DD`.
    package func quotaDay(at now: Date) -> String { calendar.day(at: now).iso }

    package func admitDecode(now: Date) async -> DecodeQuotaDecision {
        let day = quotaDay(at: now)
        let count: DecodeQuotaCount
        do {
            count = try await store.incrementDecodeCount(day: day, limit: cap.softCap)
        } catch {
            logger.warning("play decode quota store failed", ["reason": .string("play.quota_store_failed")])
            return .storeFailed
        }
        let decision = cap.decide(count)
        if decision.claimWarning, (try? await store.claimWarning(day: day)) == true {
            logger.warning(
                "play decode quota at 80 percent of the soft cap",
                [
                    "reason": .string("play.quota_warning"), "day": .string(day),
                    "softCap": .int(Int64(cap.softCap)),
                ]
            )
        }
        if !decision.admit {
            logger.debug(
                "play decode soft cap reached",
                ["reason": .string("play.quota_soft_cap"), "day": .string(day)]
            )
        }
        return decision.admit ? .admitted : .capReached
    }
}
