package import AttestCore
package import CivilTime
package import FoundationEssentials
package import PlayIntegrity
internal import Synchronization

/// A per-device, per-day decode budget in memory, with the contract of the gate's DynamoDB one
/// (`DynamoDeviceDailyBudget.playDecodes`): `GateTests/StoreContractTests` runs the same checks against both.
package final class InMemoryDecodeBudget: DeviceDailyBudget {
    private let counter: PerDeviceDayCounter
    package let perDevice: Int
    package let failing: Bool

    package init(perDevice: Int = 30, failing: Bool = false, calendar: LocalCalendar = .utc) {
        self.counter = PerDeviceDayCounter(perDevice: perDevice, calendar: calendar)
        self.perDevice = perDevice
        self.failing = failing
    }

    package struct StoreDown: Error {}

    package func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision {
        if failing { throw StoreDown() }
        return counter.spend(deviceID: deviceID, now: now) ? .spent : .exhausted
    }

    /// Decodes `deviceID` spent, over every day.
    package func used(_ deviceID: String) -> Int { counter.used(deviceID) }
}

/// A per-device daily budget in memory, as the table keeps one (`DEVICE#{id}` / `{prefix}{day}`, at most
/// `perDevice` a day in `calendar`): the fake behind every per-device day budget's in-memory store.
package final class PerDeviceDayCounter: Sendable {
    private let spent = Mutex<[String: Int]>([:])
    package let perDevice: Int
    private let calendar: LocalCalendar

    package init(perDevice: Int, calendar: LocalCalendar = .utc) {
        self.perDevice = perDevice
        self.calendar = calendar
    }

    /// Spends one unit of `deviceID`'s budget for the day containing `now`; false once it is gone.
    package func spend(deviceID: String, now: Date) -> Bool {
        let key = deviceID + "|" + calendar.day(at: now).iso
        return spent.withLock { spent in
            let used = spent[key, default: 0]
            guard used < perDevice else { return false }
            spent[key] = used + 1
            return true
        }
    }

    /// Units `deviceID` spent, over every day.
    package func used(_ deviceID: String) -> Int {
        spent.withLock { $0.filter { $0.key.hasPrefix(deviceID + "|") }.values.reduce(0, +) }
    }
}

/// Google's daily decode quota in memory, with the contract of `DynamoDecodeQuotaStore`.
package final class InMemoryDecodeQuotaStore: DecodeQuotaStore {
    private let state = Mutex<(counts: [String: Int], warned: Set<String>)>(([:], []))
    package let failing: Bool

    package init(failing: Bool = false) { self.failing = failing }

    package func incrementDecodeCount(day: String, limit: Int) async throws -> DecodeQuotaCount {
        if failing { throw InMemoryDecodeBudget.StoreDown() }
        return state.withLock { state in
            let count = state.counts[day, default: 0]
            guard count < limit else { return .limitReached }
            state.counts[day] = count + 1
            return .counted(count: count + 1, warned: state.warned.contains(day))
        }
    }

    package func claimWarning(day: String) async throws -> Bool {
        state.withLock { $0.warned.insert(day).inserted }
    }

    package func count(_ day: String) -> Int { state.withLock { $0.counts[day, default: 0] } }
}
