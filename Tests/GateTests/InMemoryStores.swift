import FoundationEssentials
import Synchronization

@testable import Gate

/// Allowance rows in memory, with the same contract as the DynamoDB store (used by pure tests only;
/// `StoreContractTests` runs the same checks against both).
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

    /// As `DayCounter.give`: one back only while the count is above zero.
    func release(_ reservation: AllowanceReservation) async throws {
        counts.withLock { counts in
            let key = key(reservation.subject, reservation.feature, reservation.day)
            if let used = counts[key], used > 0 { counts[key] = used - 1 }
        }
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

    /// As `DayCounter.give`: one back only while the count is above zero.
    func release(_ reservation: CeilingReservation) async throws {
        rows.withLock { rows in
            if let row = rows[reservation.day], row.used > 0 { rows[reservation.day]?.used -= 1 }
        }
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

/// Challenges and first-seen days in memory (no expiry logic: the DynamoDB store's tests cover that).
final class InMemoryChallengeStore: ChallengeStore, ProfileStore {
    let issued = Mutex<[String]>([])
    let firstSeen = Mutex<[Subject: String]>([:])

    func issue(deviceID: String, replacingSpent: Bool, now: Date) async throws -> IssuedChallenge {
        issued.withLock { $0.append(deviceID) }
        return IssuedChallenge(
            bytes: [UInt8](repeating: 7, count: 32),
            expiresAt: Int64(now.timeIntervalSince1970) + 300
        )
    }

    func spend(deviceID: String, challenge: [UInt8], now: Date) async throws -> Bool { false }

    func firstSeenDay(subject: Subject, today: String) async throws -> String {
        firstSeen.withLock { map in
            if let day = map[subject] { return day }
            map[subject] = today
            return today
        }
    }
}

/// Answers every metered call with a fixed evidence.
struct FixedEvidence: EvidenceSource {
    let evidence: GateEvidence
    func evaluate(request: MeteredRequest, deviceID: String, route: MeteredRoute, now: Date) async -> EvidenceReport {
        EvidenceReport(evidence: evidence, spentChallenge: evidence != .absent)
    }
}

/// An upstream that answers as told and counts its calls.
final class ScriptedUpstream: UpstreamCalling {
    let result: Mutex<UpstreamResult>
    let calls = Atomic<Int>(0)

    init(_ result: UpstreamResult) { self.result = Mutex(result) }

    func call(route: MeteredRoute, body: [UInt8], timeout: Duration) async -> UpstreamResult {
        calls.add(1, ordering: .relaxed)
        return result.withLock { $0 }
    }
}
