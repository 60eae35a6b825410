package import AttestCore
package import CivilTime
internal import DynamoDB
package import FoundationEssentials

/// One device ID's daily budget of calls to a provider that bills us per call, on the table: `DEVICE#{id}` /
/// `{kind}#{day}` with one counter, the day counters' conditional `ADD 1 IF below the limit` with an own-write
/// token (docs/gate.md, "Rows and writes"). Play Integrity's decodes (`PLAY_DECODE`, `decodes`) and DeviceCheck's
/// queries (`DEVICECHECK`, `queries`) are the same type with another row.
package struct DynamoDeviceDailyBudget: DeviceDailyBudget {
    let counter: DayCounter
    let kind: String
    let perDevice: Int
    let calendar: LocalCalendar

    /// Play Integrity's decode budget (`PLAY_DECODE_BUDGET_PER_DEVICE`).
    package static func playDecodes(table: GateTable, perDevice: Int, calendar: LocalCalendar) -> Self {
        Self(
            table: table,
            kind: "PLAY_DECODE",
            name: "decode_budget",
            attribute: "decodes",
            perDevice: perDevice,
            calendar: calendar
        )
    }

    /// DeviceCheck's budget (`DEVICECHECK_BUDGET_PER_DEVICE`): the two bits and the receipt exchange.
    package static func deviceCheckQueries(table: GateTable, perDevice: Int, calendar: LocalCalendar) -> Self {
        Self(
            table: table,
            kind: "DEVICECHECK",
            name: "devicecheck_budget",
            attribute: "queries",
            perDevice: perDevice,
            calendar: calendar
        )
    }

    init(table: GateTable, kind: String, name: String, attribute: String, perDevice: Int, calendar: LocalCalendar) {
        counter = DayCounter(table: table, name: name, attribute: attribute)
        self.kind = kind
        self.perDevice = perDevice
        self.calendar = calendar
    }

    /// The row of `deviceID`'s `day` (tests read it).
    func key(_ deviceID: String, day: String) -> Item { GateTable.key("DEVICE#\(deviceID)", "\(kind)#\(day)") }

    package func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision {
        let day = calendar.day(at: now).iso
        return try await counter.take(key: key(deviceID, day: day), limit: perDevice, expiresAt: DayKeys.endOfDay(day))
            == nil ? .exhausted : .spent
    }
}
