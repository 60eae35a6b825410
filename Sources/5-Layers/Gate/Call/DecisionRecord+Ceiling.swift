extension DecisionRecord {
    /// The day's ceiling as `reservation` saw it: each limit's use as a fraction (of the raised limit on a raised
    /// day), the money reserved but not settled, and the raise in force.
    mutating func noteCeiling(_ reservation: CeilingReservation, callLimit: Int64, costLimit: Int64) {
        if callLimit > 0 {
            ceilingCallUse = reservation.callUse ?? Self.fraction(Int64(reservation.used), of: callLimit)
        }
        if costLimit > 0 {
            ceilingCostUse = reservation.costUse ?? Self.fraction(reservation.costUsed, of: costLimit)
            ceilingDriftMicros = reservation.unsettledMicros
        }
        ceilingRaise = reservation.raise?.attribute
    }

    /// `part / whole` to four decimals (a metric value, not an accounting figure).
    static func fraction(_ part: Int64, of whole: Int64) -> Double {
        (Double(part) / Double(whole) * 10_000).rounded() / 10_000
    }
}
