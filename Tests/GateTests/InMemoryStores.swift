import FoundationEssentials
import Synchronization

@testable import Gate

/// Allowance rows in memory, with the same contract as the DynamoDB store (used by pure tests only).
final class InMemoryAllowanceStore: AllowanceStore {
    let counts = Mutex<[String: Int]>([:])
    let released = Mutex<Set<String>>([])
    let failing = Atomic<Bool>(false)
    let minted = Atomic<Int>(0)

    func key(_ subject: Subject, _ feature: String, _ day: String) -> String {
        "\(subject.partitionKey)|\(feature)|\(day)"
    }

    func reserve(subject: Subject, feature: String, day: String, limit: Int) async throws -> AllowanceReservation? {
        if failing.load(ordering: .relaxed) { throw StoreError("store.test_failure") }
        let callID = "a\(minted.add(1, ordering: .relaxed).newValue)"
        return counts.withLock { counts in
            let used = counts[key(subject, feature, day), default: 0]
            guard used < limit else { return nil }
            counts[key(subject, feature, day)] = used + 1
            return AllowanceReservation(
                subject: subject,
                feature: feature,
                day: day,
                remaining: limit - used - 1,
                callID: callID
            )
        }
    }

    func release(_ reservation: AllowanceReservation) async throws {
        guard released.withLock({ $0.insert(reservation.callID).inserted }) else { return }
        counts.withLock { $0[key(reservation.subject, reservation.feature, reservation.day), default: 0] -= 1 }
    }
}

/// The ceiling row in memory.
final class InMemoryCeilingStore: CeilingStore {
    struct Row { var used = 0, warned = false, cost: Int64 = 0, costWarned = false }
    let rows = Mutex<[String: Row]>([:])
    let givenBack = Mutex<Set<String>>([])
    let failing = Atomic<Bool>(false)
    let minted = Atomic<Int>(0)

    func reserve(day: String, limit: Int, worstCaseMicros: Int64, budgetMicros: Int64) async throws -> CeilingAttempt {
        if failing.load(ordering: .relaxed) { throw StoreError("store.test_failure") }
        let callID = "c\(minted.add(1, ordering: .relaxed).newValue)"
        return rows.withLock { rows in
            var row = rows[day, default: Row()]
            if limit > 0, row.used >= limit { return .callsReached }
            if budgetMicros > 0, row.cost + worstCaseMicros > budgetMicros { return .costReached }
            row.used += 1
            row.cost += worstCaseMicros
            rows[day] = row
            return .reserved(
                CeilingReservation(
                    day: day,
                    used: row.used,
                    warned: row.warned,
                    callID: callID,
                    costMicros: worstCaseMicros,
                    costUsed: row.cost,
                    costWarned: row.costWarned
                )
            )
        }
    }

    func giveBack(_ reservation: CeilingReservation, calls: Int, micros: Int64) async throws -> Bool {
        guard givenBack.withLock({ $0.insert(reservation.callID).inserted }) else { return true }
        rows.withLock {
            $0[reservation.day, default: Row()].used -= calls
            $0[reservation.day, default: Row()].cost -= micros
        }
        return true
    }

    func claimWarning(day: String) async throws -> Bool {
        rows.withLock { rows in
            if rows[day, default: Row()].warned { return false }
            rows[day, default: Row()].warned = true
            return true
        }
    }

    func claimCostWarning(day: String) async throws -> Bool {
        rows.withLock { rows in
            if rows[day, default: Row()].costWarned { return false }
            rows[day, default: Row()].costWarned = true
            return true
        }
    }

    func used(_ day: String) -> Int { rows.withLock { $0[day]?.used ?? 0 } }
    func cost(_ day: String) -> Int64 { rows.withLock { $0[day]?.cost ?? 0 } }
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
