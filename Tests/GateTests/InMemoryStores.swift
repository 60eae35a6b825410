import Synchronization

@testable import Gate

/// Allowance rows in memory, with the same contract as the DynamoDB store (used by pure tests only).
final class InMemoryAllowanceStore: AllowanceStore {
    let counts = Mutex<[String: Int]>([:])
    let failing = Atomic<Bool>(false)

    func key(_ subject: Subject, _ feature: String, _ day: String) -> String {
        "\(subject.partitionKey)|\(feature)|\(day)"
    }

    func reserve(subject: Subject, feature: String, day: String, limit: Int) async throws -> AllowanceReservation? {
        if failing.load(ordering: .relaxed) { throw StoreError("store.test_failure") }
        return counts.withLock { counts in
            let used = counts[key(subject, feature, day), default: 0]
            guard used < limit else { return nil }
            counts[key(subject, feature, day)] = used + 1
            return AllowanceReservation(subject: subject, feature: feature, day: day, remaining: limit - used - 1)
        }
    }

    func release(_ reservation: AllowanceReservation) async throws {
        counts.withLock { $0[key(reservation.subject, reservation.feature, reservation.day), default: 0] -= 1 }
    }
}

/// The ceiling row in memory.
final class InMemoryCeilingStore: CeilingStore {
    struct Row { var used = 0, warned = false }
    let rows = Mutex<[String: Row]>([:])
    let failing = Atomic<Bool>(false)

    func reserve(day: String, limit: Int) async throws -> CeilingReservation? {
        if failing.load(ordering: .relaxed) { throw StoreError("store.test_failure") }
        return rows.withLock { rows in
            var row = rows[day, default: Row()]
            guard row.used < limit else { return nil }
            row.used += 1
            rows[day] = row
            return CeilingReservation(day: day, used: row.used, warned: row.warned)
        }
    }

    func release(_ reservation: CeilingReservation) async throws {
        rows.withLock { $0[reservation.day, default: Row()].used -= 1 }
    }

    func claimWarning(day: String) async throws -> Bool {
        rows.withLock { rows in
            if rows[day, default: Row()].warned { return false }
            rows[day, default: Row()].warned = true
            return true
        }
    }

    func used(_ day: String) -> Int { rows.withLock { $0[day]?.used ?? 0 } }
}
