package import CivilTime
package import DeviceCheck
internal import DynamoDB
package import FoundationEssentials

/// One device ID's daily DeviceCheck budget: `DEVICE#{id}` / `DEVICECHECK#{day}`, the same conditional
/// `ADD queries 1 IF queries < limit` with an own-write token as the Play decode budget (docs/gate.md).
package struct DynamoDeviceCheckBudget: DeviceCheckBudget {
    let counter: DayCounter
    let perDevice: Int
    let calendar: LocalCalendar

    package init(table: GateTable, perDevice: Int, calendar: LocalCalendar) {
        counter = DayCounter(table: table, name: "devicecheck_budget", attribute: "queries")
        self.perDevice = perDevice
        self.calendar = calendar
    }

    static func key(_ deviceID: String, day: String) -> Item {
        GateTable.key("DEVICE#\(deviceID)", "DEVICECHECK#\(day)")
    }

    package func spendOne(deviceID: String, now: Date) async throws -> DeviceCheckBudgetDecision {
        let day = calendar.day(at: now).iso
        let row = Self.key(deviceID, day: day)
        return try await counter.take(key: row, limit: perDevice, expiresAt: DayKeys.endOfDay(day)) == nil
            ? .exhausted : .spent
    }
}
