internal import AttestCore
package import CivilTime
package import FoundationEssentials

/// Layer 3: the environment-wide daily ceilings on AI calls nobody paid for (docs/gate.md), in
/// calls (`AI_DAILY_CALL_CEILING`) and in money (`AI_DAILY_COST_CEILING_USD`).
///
/// Counted before the call, so the bill has a hard cap even when layers 1 and 2 are beaten: each call
/// reserves one unit and its worst-case cost in one conditional write, and no call is admitted once its
/// worst case no longer fits. After the answer, `settle` gives back the difference between the worst case
/// and what the provider reported, once. Paid pools are never counted (free IDs cost nothing to mint, so
/// counting paid calls would let them lock paying users out). A store failure fails closed.
package struct CeilingGuard: Sendable {
    package enum Outcome: Sendable, Hashable {
        /// No ceiling applies (paid pool, or both budgets 0).
        case notMetered
        /// One unit and the worst case taken; each flag is true on the single call per day that claimed
        /// that ceiling's 80 % warning.
        case reserved(CeilingReservation, warningClaimed: Bool, costWarningClaimed: Bool)
        /// A ceiling is spent (`calls` or `cost`); `retryAfter` seconds until the next day.
        case exhausted(retryAfter: Int, ceiling: String)
    }

    /// What a settle did.
    package enum Settlement: Sendable, Hashable {
        /// No usage reported: the worst case stays reserved.
        case kept
        /// The reservation now holds exactly the reported cost (`givenBack` micro-dollars returned).
        case settled(givenBack: Int64)
        /// The reported cost exceeded the worst case (under a route's `maxInputTokens`, which lets media
        /// through, or with a price below the provider's): the excess was added in full.
        case exceeded(by: Int64)
    }

    let store: any CeilingStore
    /// The unproven pool's sub-ceiling (`AI_DAILY_UNPROVEN_*`), reserved before this one for a call served
    /// from the pool and counted in both (docs/gate.md, "The unproven pool"); nil without one.
    package var unproven: UnprovenPool?
    /// Calls per day; 0 means no call ceiling.
    package let dailyLimit: Int
    /// Micro-dollars per day; 0 means no money ceiling.
    package let dailyCostLimitMicros: Int64
    let calendar: LocalCalendar

    package init(store: any CeilingStore, dailyLimit: Int, dailyCostLimitMicros: Int64 = 0, calendar: LocalCalendar) {
        self.store = store
        self.dailyLimit = dailyLimit
        self.dailyCostLimitMicros = dailyCostLimitMicros
        self.calendar = calendar
    }

    /// The warning threshold: 80 % of the limit (`WarningThreshold`).
    package var warningThreshold: Int { WarningThreshold.of(dailyLimit) }
    /// The money warning threshold: 80 % of the budget (`WarningThreshold`).
    package var costWarningThreshold: Int64 { WarningThreshold.of(dailyCostLimitMicros) }

    /// - Parameters:
    ///   - worstCaseMicros: the call's worst-case cost (ignored without a money ceiling).
    ///   - pooled: the call is served from the unproven pool: its sub-ceiling first, then this one; a refusal
    ///     of either takes nothing (the pool's units come back when this ceiling refuses).
    /// - Throws: `StoreError` when the units cannot be taken (fail closed: `503 unavailable`); never for
    ///   a warning claim.
    package func reserve(
        paid: Bool,
        worstCaseMicros: Int64 = 0,
        pooled: Bool = false,
        now: Date
    ) async throws
        -> Outcome
    {
        guard pooled, !paid else { return try await reserveOwn(paid: paid, worstCaseMicros: worstCaseMicros, now: now) }
        guard let unproven else { throw StoreError("store.unproven_pool_missing") }
        let pool: CeilingReservation
        switch try await unproven.guardian.reserveOwn(paid: false, worstCaseMicros: worstCaseMicros, now: now) {
        case .reserved(let reservation, _, _): pool = reservation
        case .exhausted(let retryAfter, let which):
            return .exhausted(retryAfter: retryAfter, ceiling: "unproven_\(which)")
        case .notMetered: throw StoreError("store.unproven_pool_unmetered")
        }
        let outcome: Outcome
        do {
            outcome = try await reserveOwn(paid: false, worstCaseMicros: worstCaseMicros, now: now)
        } catch {
            try? await unproven.guardian.release(pool)
            throw error
        }
        switch outcome {
        case .reserved(var reservation, let warningClaimed, let costWarningClaimed):
            reservation.pooled = [pool]
            return .reserved(reservation, warningClaimed: warningClaimed, costWarningClaimed: costWarningClaimed)
        case .exhausted, .notMetered:
            try? await unproven.guardian.release(pool)
            return outcome
        }
    }

    private func reserveOwn(paid: Bool, worstCaseMicros: Int64, now: Date) async throws -> Outcome {
        guard dailyLimit > 0 || dailyCostLimitMicros > 0, !paid else { return .notMetered }
        let day = calendar.day(at: now).iso
        let worst = dailyCostLimitMicros > 0 ? max(0, worstCaseMicros) : 0
        let reservation: CeilingReservation
        switch try await store.reserve(
            day: day,
            limit: dailyLimit,
            worstCaseMicros: worst,
            budgetMicros: dailyCostLimitMicros
        ) {
        case .reserved(let reserved): reservation = reserved
        case .callsReached: return .exhausted(retryAfter: calendar.secondsUntilNextDay(after: now), ceiling: "calls")
        case .costReached: return .exhausted(retryAfter: calendar.secondsUntilNextDay(after: now), ceiling: "cost")
        }
        // Only the request that wins the conditional write on the flag logs the day's warning; the counts
        // can fall as units are given back, so "exactly 80 %" would fire again and again. A failed claim
        // never fails the call, whose units are already taken: the flag stays unset, so the next call
        // past the threshold claims it.
        // A raised day warns at 80 % of its raised limits.
        var claimed = false
        if dailyLimit > 0, Int64(reservation.used) >= WarningThreshold.of(callLimit(reservation)), !reservation.warned {
            claimed = (try? await store.claimWarning(reservation)) ?? false
        }
        var costClaimed = false
        if dailyCostLimitMicros > 0, reservation.costUsed >= WarningThreshold.of(costLimit(reservation)),
            !reservation.costWarned
        {
            costClaimed = (try? await store.claimCostWarning(reservation)) ?? false
        }
        return .reserved(reservation, warningClaimed: claimed, costWarningClaimed: costClaimed)
    }

    /// The day's call limit a reservation was judged against: an operator's raise, else `dailyLimit`.
    package func callLimit(_ reservation: CeilingReservation) -> Int64 { reservation.raise?.calls ?? Int64(dailyLimit) }

    /// The day's money limit a reservation was judged against, in micro-dollars.
    package func costLimit(_ reservation: CeilingReservation) -> Int64 {
        reservation.raise?.micros ?? dailyCostLimitMicros
    }

    /// Gives the unit and the whole worst case back when the provider provably did not bill the call.
    /// - Throws: `StoreError` (the units then stay spent).
    package func release(_ reservation: CeilingReservation) async throws {
        try await store.release(reservation)
        for pool in reservation.pooled { try? await unproven?.guardian.release(pool) }
    }

    /// Settles the money reservation to the cost the provider reported, once.
    /// - Parameter costMicros: the reported usage priced; nil when the answer carried no usage.
    /// - Throws: `StoreError` (the worst case then stays reserved).
    package func settle(_ reservation: CeilingReservation, costMicros: Int64?) async throws -> Settlement {
        for pool in reservation.pooled { _ = try? await unproven?.guardian.settle(pool, costMicros: costMicros) }
        guard let costMicros, dailyCostLimitMicros > 0 else { return .kept }
        let difference = reservation.costMicros - costMicros
        try await store.giveBack(reservation, calls: 0, micros: difference, settled: costMicros)
        return difference >= 0 ? .settled(givenBack: difference) : .exceeded(by: -difference)
    }
}

/// The unproven pool's sub-ceiling: a guard of its own over its own rows (`AI_UNPROVEN#{day}`), in calls
/// (`AI_DAILY_UNPROVEN_CALL_CEILING`) and money (`AI_DAILY_UNPROVEN_COST_CEILING_USD`). A class so the
/// environment's guard can hold it.
package final class UnprovenPool: Sendable {
    let guardian: CeilingGuard

    package init(_ guardian: CeilingGuard) { self.guardian = guardian }
}
