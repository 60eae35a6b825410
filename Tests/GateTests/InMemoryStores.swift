import AttestCore
import CivilTime
import DeviceCheck
import FoundationEssentials
import Synchronization
import TestSupport

@testable import Gate

/// Allowance rows in memory, with the same contract as the DynamoDB store (used by pure tests only;
/// `StoreContractTests` runs the same checks against both).
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

    /// As `DayCounter.give`: one back only while the count is above zero.
    func release(_ reservation: AllowanceReservation) async throws {
        // As the DynamoDB store: once per call ID, and only while the count holds the unit.
        released.withLock { released in
            counts.withLock { counts in
                let key = key(reservation.subject, reservation.feature, reservation.day)
                guard !released.contains(reservation.callID), let used = counts[key], used > 0 else { return }
                released.insert(reservation.callID)
                counts[key] = used - 1
            }
        }
    }
}

/// The ceiling row in memory.
final class InMemoryCeilingStore: CeilingStore {
    struct Row { var used = 0, warned = false, cost: Int64 = 0, costWarned = false, settled: Int64 = 0 }
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

    /// As the DynamoDB store: once per call ID; a positive amount only while the row holds it (else nothing
    /// applies and no marker is left); a negative amount adds.
    func giveBack(_ reservation: CeilingReservation, calls: Int, micros: Int64, settled: Int64) async throws -> Bool {
        givenBack.withLock { givenBack in
            rows.withLock { rows in
                if givenBack.contains(reservation.callID) { return true }
                var row = rows[reservation.day, default: Row()]
                if calls > 0, row.used < calls { return false }
                if micros > 0, row.cost < micros { return false }
                row.used -= calls
                row.cost -= micros
                row.settled += settled
                rows[reservation.day] = row
                givenBack.insert(reservation.callID)
                return true
            }
        }
    }

    func claimWarning(_ reservation: CeilingReservation) async throws -> Bool {
        let day = reservation.day
        return rows.withLock { rows in
            if rows[day, default: Row()].warned { return false }
            rows[day, default: Row()].warned = true
            return true
        }
    }

    func claimCostWarning(_ reservation: CeilingReservation) async throws -> Bool {
        let day = reservation.day
        return rows.withLock { rows in
            if rows[day, default: Row()].costWarned { return false }
            rows[day, default: Row()].costWarned = true
            return true
        }
    }

    func used(_ day: String) -> Int { rows.withLock { $0[day]?.used ?? 0 } }
    func cost(_ day: String) -> Int64 { rows.withLock { $0[day]?.cost ?? 0 } }
}

/// Challenges and profiles in memory (no expiry logic: the DynamoDB store's tests cover that). A device ID's
/// profile is the tier store's row, as on the table, so a recorded tier shows in `profile(subject:today:)`.
final class InMemoryChallengeStore: ChallengeStore, ProfileStore {
    let issued = Mutex<[String]>([])
    let userFirstSeen = Mutex<[String: String]>([:])
    let tiers: InMemoryDeviceTierStore

    init(tiers: InMemoryDeviceTierStore = InMemoryDeviceTierStore()) { self.tiers = tiers }

    func issue(deviceID: String, replacingSpent: Bool, now: Date) async throws -> IssuedChallenge {
        issued.withLock { $0.append(deviceID) }
        return IssuedChallenge(
            bytes: [UInt8](repeating: 7, count: 32),
            expiresAt: Int64(now.timeIntervalSince1970) + 300
        )
    }

    func spend(deviceID: String, challenge: [UInt8], now: Date) async throws -> Bool { false }

    /// Replacements counted per device; past `replacementLimit` they are refused as the table refuses them.
    let replacements = Mutex<[String: Int]>([:])
    let replacementLimit = 200

    func countReplacement(deviceID: String, now: Date) async throws {
        let allowed = replacements.withLock { counts in
            counts[deviceID, default: 0] += 1
            return counts[deviceID, default: 0] <= replacementLimit
        }
        guard allowed else { throw ChallengeIssueError.tooMany }
    }

    func profile(subject: Subject, today: String) async throws -> DeviceProfile {
        switch subject {
        case .device(let deviceID):
            return tiers.profile(deviceID: deviceID, today: today)
        case .user(let key), .debugToken(let key):
            return userFirstSeen.withLock { map in
                if let day = map[subject.partitionKey + key] { return DeviceProfile(firstSeen: day) }
                map[subject.partitionKey + key] = today
                return DeviceProfile(firstSeen: today)
            }
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

/// The tier store's contract in memory (moves only as `DeviceTier.mayMove` allows), on a device ID's profile
/// row as `DynamoDeviceTierStore` keeps it next to `first_seen`.
final class InMemoryDeviceTierStore: DeviceTierStore {
    struct Row {
        var firstSeen: String
        var tier: DeviceTier?
        var reason: String?
        var marked: String?
    }
    private let state = Mutex<[String: Row]>([:])

    func storedProfile(deviceID: String) async throws -> DeviceProfile? {
        state.withLock { rows in
            rows[deviceID].map {
                DeviceProfile(firstSeen: $0.firstSeen, tier: $0.tier, tierReason: $0.reason, tierMarked: $0.marked)
            }
        }
    }

    func recordTier(
        deviceID: String,
        tier: DeviceTier,
        reason: String,
        today: String,
        marked: String?
    ) async throws -> DeviceTier {
        state.withLock { rows in
            let stored = rows[deviceID]
            let marked = tier == .first ? marked : nil
            guard DeviceTier.mayMove(from: stored?.tier, marked: stored?.marked, to: tier, marked: marked) else {
                return stored?.tier ?? tier
            }
            rows[deviceID] = Row(
                firstSeen: stored?.firstSeen ?? today,
                tier: tier,
                reason: reason,
                marked: marked ?? stored?.marked
            )
            return tier
        }
    }

    func marked(deviceID: String) -> String? { state.withLock { $0[deviceID]?.marked } }

    func reason(deviceID: String) -> String? { state.withLock { $0[deviceID]?.reason } }

    /// The profile row, stamping `today` as its first-seen day if it has none (`ProfileStore.profile`).
    func profile(deviceID: String, today: String) -> DeviceProfile {
        state.withLock { rows in
            let row = rows[deviceID] ?? Row(firstSeen: today)
            rows[deviceID] = row
            return DeviceProfile(
                firstSeen: row.firstSeen,
                tier: row.tier,
                tierReason: row.reason,
                tierMarked: row.marked
            )
        }
    }
}

/// A device's DeviceCheck queries per day in memory (`DEVICECHECK#{day}` on the table), with the same
/// contract as `DynamoDeviceDailyBudget.deviceCheckQueries` (`StoreContractTests` runs the same checks against both).
final class InMemoryDeviceCheckBudget: DeviceDailyBudget {
    private let counter: PerDeviceDayCounter

    init(perDevice: Int = 30, calendar: LocalCalendar = .utc) {
        counter = PerDeviceDayCounter(perDevice: perDevice, calendar: calendar)
    }

    func spendOne(deviceID: String, now: Date) async throws -> DeviceBudgetDecision {
        counter.spend(deviceID: deviceID, now: now) ? .spent : .exhausted
    }
}
