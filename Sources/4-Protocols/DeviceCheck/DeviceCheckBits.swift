/// A month as DeviceCheck's `last_update_time` writes it (`YYYY-MM`): Apple keeps the time of the last
/// bit update to the month only.
package struct BitsMonth: Sendable, Hashable, Comparable, CustomStringConvertible {
    package let year: Int
    package let month: Int

    package init?(year: Int, month: Int) {
        guard (1...9999).contains(year), (1...12).contains(month) else { return nil }
        self.year = year
        self.month = month
    }

    /// Parses exactly `YYYY-MM` (four digits, a hyphen, two digits, month 01–12); nil for anything else.
    package init?(apple text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[4] == UInt8(ascii: "-") else { return nil }
        let digits = bytes[0..<4] + bytes[5..<7]
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        func number(_ slice: ArraySlice<UInt8>) -> Int { slice.reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        self.init(year: number(bytes[0..<4]), month: number(bytes[5..<7]))
    }

    /// Months since year 0, for differences.
    var ordinal: Int { year * 12 + (month - 1) }

    package static func < (lhs: BitsMonth, rhs: BitsMonth) -> Bool { lhs.ordinal < rhs.ordinal }

    package var description: String {
        let year = String(year)
        let month = String(month)
        return String(repeating: "0", count: 4 - year.count) + year + "-" + (month.count == 1 ? "0" : "") + month
    }
}

/// The two bits Apple keeps for one physical device and our developer team, kept across reinstalls and
/// erases (Apple, "Accessing and modifying per-device data").
package struct DeviceBits: Sendable, Hashable {
    package var bit0: Bool
    package var bit1: Bool
    /// `last_update_time`: the month of the last `update_two_bits` for this device.
    package var lastUpdate: BitsMonth

    package init(bit0: Bool, bit1: Bool, lastUpdate: BitsMonth) {
        self.bit0 = bit0
        self.bit1 = bit1
        self.lastUpdate = lastUpdate
    }
}

/// What `query_two_bits` answered.
package enum TwoBitsState: Sendable, Hashable {
    /// `200` with the text `Failed to find bit state`: the bits were never set for this device.
    case neverSet
    case bits(DeviceBits)
}

/// Why a two-bits call gave no answer: the reason slug for logs and metrics, never shown to the client.
package struct TwoBitsError: Error, Hashable, CustomStringConvertible {
    package struct Reason: Hashable, Sendable, CustomStringConvertible {
        package let slug: String
        /// True when the device token is at fault (the caller treats the device as unproven); false when
        /// Apple or our own credentials are (the caller treats the mark as unreadable).
        package let blamesToken: Bool
        private init(_ slug: String, blamesToken: Bool = false) {
            self.slug = slug
            self.blamesToken = blamesToken
        }
        package var description: String { slug }

        /// Not base64, empty or implausibly long; Apple was not called.
        package static let tokenMalformed = Reason("devicecheck.bits_token_malformed", blamesToken: true)
        /// `400`: Apple refused the device token.
        package static let tokenRejected = Reason("devicecheck.bits_token_rejected", blamesToken: true)
        /// `401`/`403`: Apple refused our JWT (key, key id or team).
        package static let unauthorized = Reason("devicecheck.bits_unauthorized")
        /// `429`.
        package static let rateLimited = Reason("devicecheck.bits_rate_limited")
        /// `5xx`, `408`, a timeout or a connection failure.
        package static let serviceUnavailable = Reason("devicecheck.bits_unavailable")
        /// Too little of the deadline was left to call Apple, or it passed during the call.
        package static let deadlineExceeded = Reason("devicecheck.bits_deadline")
        /// A `200` whose body is neither the bits nor `Failed to find bit state`.
        package static let answerMalformed = Reason("devicecheck.bits_answer_malformed")
        /// Signing our JWT failed.
        package static let signingFailed = Reason("devicecheck.bits_signing_failed")
        /// Another status.
        package static let refused = Reason("devicecheck.bits_refused")
        /// The device ID's daily DeviceCheck budget is spent; Apple was not called.
        package static let budgetExhausted = Reason("devicecheck.bits_budget_exhausted")
        /// The budget's store failed; Apple was not called.
        package static let budgetStoreFailed = Reason("devicecheck.bits_budget_store_failed")
    }

    package let reason: Reason
    package let status: Int?

    package init(_ reason: Reason, status: Int? = nil) {
        self.reason = reason
        self.status = status
    }

    /// Equality uses only `reason`; `status` is for logs.
    package static func == (lhs: TwoBitsError, rhs: TwoBitsError) -> Bool { lhs.reason == rhs.reason }
    package func hash(into hasher: inout Hasher) { hasher.combine(reason) }
    package var description: String { status.map { "\(reason.slug) (\($0))" } ?? reason.slug }
}
