/// Layer 3's hold on one call: one unit of the day's call ceiling and the call's worst-case cost in
/// micro-dollars, both on the `AI_BUDGET#{day}` / `TOTAL` row. What is given back goes back once.
package struct CeilingReservation: Sendable, Hashable {
    package let day: String
    /// Calls counted that day, this one included.
    package let used: Int
    /// Whether the day's 80 % warning (calls) has already been claimed.
    package let warned: Bool
    /// Names this reservation's single give-back (release or settle): a resend or a second attempt of it
    /// finds its marker and never applies twice. Minted by the store.
    package let callID: String
    /// The worst case reserved for this call, in micro-dollars (0 without a money ceiling).
    package let costMicros: Int64
    /// The day's reserved cost after this reservation, in micro-dollars.
    package let costUsed: Int64
    /// Whether the day's 80 % warning (cost) has already been claimed.
    package let costWarned: Bool
    /// Where the units are held: one part on one ceiling shard, or at the end of a day several
    /// (docs/gate.md, "The ceiling under contention").
    package let parts: [CeilingPart]
    /// The unproven pool's own reservation when the call was served from it (at most one; docs/gate.md,
    /// "The unproven pool"): given back and settled with this one.
    package var pooled: [CeilingReservation] = []
    /// The operator's raise of the day the reservation was judged against (nil: the configured limits).
    package let raise: CeilingRaise?
    /// Micro-dollars the day holds for calls not settled (reserved minus settled: in flight, kept after a cut
    /// or a missing usage), scaled from the shard's row as `used` is.
    package let unsettledMicros: Int64
    /// The day's use of each limit as the store measured it (a shard's use of its share stands for the day's
    /// use); nil: `used` and `costUsed` over the limits.
    package var callUse: Double? = nil
    package var costUse: Double? = nil

    package init(
        day: String,
        used: Int,
        warned: Bool,
        callID: String,
        costMicros: Int64 = 0,
        costUsed: Int64 = 0,
        costWarned: Bool = false,
        parts: [CeilingPart]? = nil,
        raise: CeilingRaise? = nil,
        unsettledMicros: Int64 = 0
    ) {
        self.day = day
        self.used = used
        self.warned = warned
        self.callID = callID
        self.costMicros = costMicros
        self.costUsed = costUsed
        self.costWarned = costWarned
        self.parts = parts ?? [CeilingPart(shard: 0, calls: 1, micros: costMicros)]
        self.raise = raise
        self.unsettledMicros = unsettledMicros
    }
}

/// What one ceiling shard holds for a reservation.
package struct CeilingPart: Sendable, Hashable {
    package let shard: Int
    package let calls: Int
    package let micros: Int64

    package init(shard: Int, calls: Int, micros: Int64) {
        self.shard = shard
        self.calls = calls
        self.micros = micros
    }
}

/// Why a ceiling reservation was refused.
package enum CeilingAttempt: Sendable, Hashable {
    case reserved(CeilingReservation)
    /// The day's call count reached `AI_DAILY_CALL_CEILING`.
    case callsReached
    /// The call's worst case does not fit in what is left of `AI_DAILY_COST_CEILING_USD`.
    case costReached
}

/// The environment-wide daily ceiling (layer 3) in the `AI_BUDGET#{day}` / `TOTAL` row.
///
/// Contract: `reserve` counts one call and adds its worst-case cost before the call is made, in one
/// conditional write that is both "below both limits" and "not our own resend"; `giveBack` takes back
/// `calls` units and `micros` micro-dollars (negative: adds) at most once per reservation whatever
/// resends and other writers do; `claimWarning` / `claimCostWarning` return true to exactly one caller
/// per day, given a reservation that reached the threshold.
package protocol CeilingStore: Sendable {
    /// - Parameters:
    ///   - limit: calls per day; 0: calls are counted but not limited.
    ///   - worstCaseMicros: the call's worst-case cost; 0 without a money ceiling.
    ///   - budgetMicros: the day's money ceiling; 0: none.
    /// - Throws: `StoreError` (the caller fails closed).
    func reserve(day: String, limit: Int, worstCaseMicros: Int64, budgetMicros: Int64) async throws -> CeilingAttempt

    /// Gives back part or all of `reservation`, once, and counts `settled` micro-dollars as the settled cost of
    /// a call (the day's `settled`, which `attestgate ceiling show` and the drift metric read).
    /// - Returns: false when it was not applied (the row would go below zero); a resend of an applied
    ///   give-back returns true without applying again.
    /// - Throws: `StoreError` (the units then stay spent).
    @discardableResult
    func giveBack(_ reservation: CeilingReservation, calls: Int, micros: Int64, settled: Int64) async throws -> Bool

    /// - Returns: true for the single caller that sets the day's `warned` flag.
    /// - Throws: `StoreError`.
    func claimWarning(_ reservation: CeilingReservation) async throws -> Bool

    /// - Returns: true for the single caller that sets the day's `cost_warned` flag.
    /// - Throws: `StoreError`.
    func claimCostWarning(_ reservation: CeilingReservation) async throws -> Bool
}

extension CeilingStore {
    /// A call-count reservation only (no money ceiling).
    package func reserve(day: String, limit: Int) async throws -> CeilingReservation? {
        if case .reserved(let reservation) = try await reserve(
            day: day,
            limit: limit,
            worstCaseMicros: 0,
            budgetMicros: 0
        ) {
            return reservation
        }
        return nil
    }

    /// Claims the day's `warned` flag itself (on shard 0), as a reservation there would.
    package func claimWarning(day: String) async throws -> Bool {
        try await claimWarning(CeilingReservation(day: day, used: 0, warned: false, callID: ""))
    }

    /// Gives the whole reservation back: the call unit and its worst case (the call was not billed).
    package func release(_ reservation: CeilingReservation) async throws {
        try await giveBack(reservation, calls: 1, micros: reservation.costMicros)
    }

    /// A give-back that settles nothing.
    @discardableResult
    package func giveBack(_ reservation: CeilingReservation, calls: Int, micros: Int64) async throws -> Bool {
        try await giveBack(reservation, calls: calls, micros: micros, settled: 0)
    }
}
