import AWSJSON
import AttestCore
import CivilTime
import DynamoDB
import FoundationEssentials
import TestSupport
import Testing

@testable import Gate

/// The gate's stores against moto: conditions, expiry, ownership, races and resends.
@Suite(.enabled(if: MotoTable.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct DynamoStoreTests {
    let now = Date(timeIntervalSince1970: 1_796_040_000)
    let device = "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"

    @Test func aChallengeIsSpentOnceOnlyByItsDeviceAndOnlyBeforeItExpires() async throws {
        let store = DynamoChallengeStore(table: try await MotoTable.make(), ttlSeconds: 300)
        let issued = try await store.issue(deviceID: device, replacingSpent: false, now: now)
        #expect(issued.bytes.count == 32 && issued.expiresAt == 1_796_040_300)
        #expect(try await !store.spend(deviceID: "other-device", challenge: issued.bytes, now: now))
        #expect(try await store.spend(deviceID: device, challenge: issued.bytes, now: now))
        #expect(try await !store.spend(deviceID: device, challenge: issued.bytes, now: now))

        let late = try await store.issue(deviceID: device, replacingSpent: false, now: now)
        #expect(try await !store.spend(deviceID: device, challenge: late.bytes, now: now.addingTimeInterval(300)))
        #expect(try await !store.spend(deviceID: device, challenge: late.bytes + [0], now: now))
        #expect(try await !store.spend(deviceID: device, challenge: [UInt8](repeating: 1, count: 32), now: now))
    }

    @Test func severalChallengesAreLiveAtOnce() async throws {
        let store = DynamoChallengeStore(table: try await MotoTable.make())
        let a = try await store.issue(deviceID: device, replacingSpent: false, now: now)
        let b = try await store.issue(deviceID: device, replacingSpent: false, now: now)
        #expect(try await store.spend(deviceID: device, challenge: b.bytes, now: now))
        #expect(try await store.spend(deviceID: device, challenge: a.bytes, now: now))
    }

    @Test func issuingIsBoundedPerDeviceAndDayExceptWhenReplacingASpentOne() async throws {
        let store = DynamoChallengeStore(table: try await MotoTable.make(), dailyIssueLimit: 3)
        for _ in 0..<3 { _ = try await store.issue(deviceID: device, replacingSpent: false, now: now) }
        await #expect(throws: ChallengeIssueError.tooMany) {
            try await store.issue(deviceID: device, replacingSpent: false, now: now)
        }
        _ = try await store.issue(deviceID: device, replacingSpent: true, now: now)
        _ = try await store.issue(deviceID: device, replacingSpent: false, now: now.addingTimeInterval(86_400))
    }

    @Test func twentyParallelSpendsOfOneChallengeSucceedExactlyOnce() async throws {
        let table = try await MotoTable.make()
        let store = DynamoChallengeStore(table: table)
        let issued = try await store.issue(deviceID: device, replacingSpent: false, now: now)
        let wins = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                let sibling = DynamoChallengeStore(table: try MotoTable.sibling(of: table))
                group.addTask { try await sibling.spend(deviceID: device, challenge: issued.bytes, now: now) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(wins == 1)
    }

    @Test func aResentSpendStillCountsAsThisCallsSpend() async throws {
        let hook = ResendingTransport(resending: ["UpdateItem"])
        let table = try await MotoTable.make()
        let store = DynamoChallengeStore(table: table)
        let issued = try await store.issue(deviceID: device, replacingSpent: true, now: now)
        let resending = DynamoChallengeStore(table: try MotoTable.sibling(of: table, hook: hook))
        #expect(try await resending.spend(deviceID: device, challenge: issued.bytes, now: now))
        #expect(hook.resent == 1)
        #expect(try await !store.spend(deviceID: device, challenge: issued.bytes, now: now))
    }

    @Test func keysBindRebindAndBelongToOneDevice() async throws {
        let store = DynamoAppAttestKeyStore(table: try await MotoTable.make())
        let first = StoredAppAttestKey(
            keyId: [UInt8](repeating: 1, count: 32),
            publicKey: [4, 1],
            counter: 0,
            environment: "development"
        )
        let second = StoredAppAttestKey(
            keyId: [UInt8](repeating: 2, count: 32),
            publicKey: [4, 2],
            counter: 0,
            environment: "development"
        )
        #expect(try await store.bind(deviceID: device, key: first, receipt: [9]) == .bound)
        #expect(try await store.bind(deviceID: device, key: first, receipt: [9]) == .reRegistered)
        #expect(try await store.bind(deviceID: "other-device", key: first, receipt: []) == nil)
        #expect(try await store.bind(deviceID: device, key: second, receipt: []) == .rebound)
        let (key, _) = try await store.lookup(deviceID: device)
        #expect(key?.keyId == second.keyId && key?.counter == 0)
    }

    @Test func theCounterOnlyMovesForwardAndOnlyForTheKeyThatVerified() async throws {
        let table = try await MotoTable.make()
        let store = DynamoAppAttestKeyStore(table: table)
        let key = StoredAppAttestKey(
            keyId: [UInt8](repeating: 1, count: 32),
            publicKey: [4],
            counter: 0,
            environment: "development"
        )
        _ = try await store.bind(deviceID: device, key: key, receipt: [])
        #expect(try await store.advanceCounter(deviceID: device, keyId: key.keyId, to: 1))
        #expect(try await !store.advanceCounter(deviceID: device, keyId: key.keyId, to: 1))
        #expect(try await !store.advanceCounter(deviceID: device, keyId: [UInt8](repeating: 7, count: 32), to: 5))
        let hook = ResendingTransport(resending: ["UpdateItem"])
        let resending = DynamoAppAttestKeyStore(table: try MotoTable.sibling(of: table, hook: hook))
        #expect(try await resending.advanceCounter(deviceID: device, keyId: key.keyId, to: 2))
        #expect(hook.resent == 1)
        #expect(try await store.lookup(deviceID: device).key?.counter == 2)
    }

    @Test func anAllowanceOfNAdmitsExactlyNOutOf3NParallelCalls() async throws {
        let table = try await MotoTable.make()
        let n = 5
        let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<(3 * n) {
                let store = DynamoAllowanceStore(table: try MotoTable.sibling(of: table))
                group.addTask {
                    try await store.reserve(
                        subject: .device(device),
                        feature: "generation",
                        day: "2026-11-30",
                        limit: n
                    ) != nil
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(admitted == n)
    }

    @Test func resentReservationsAndReleasesCountOnce() async throws {
        let hook = ResendingTransport(resending: ["UpdateItem", "TransactWriteItems"])
        let table = try await MotoTable.make()
        let store = DynamoAllowanceStore(table: try MotoTable.sibling(of: table, hook: hook))
        let first = try #require(
            try await store.reserve(subject: .device(device), feature: "tutor", day: "2026-11-30", limit: 3)
        )
        #expect(first.remaining == 2)
        let second = try #require(
            try await store.reserve(subject: .device(device), feature: "tutor", day: "2026-11-30", limit: 3)
        )
        #expect(second.remaining == 1)
        try await store.release(second)
        #expect(hook.resent == 3)
        let plain = DynamoAllowanceStore(table: table)
        #expect(
            try await plain.reserve(subject: .device(device), feature: "tutor", day: "2026-11-30", limit: 3)?.remaining
                == 1
        )
    }

    @Test func theCeilingAdmitsExactlyKOf3KParallelCallsAndWarnsOnce() async throws {
        let table = try await MotoTable.make()
        let k = 6
        let results = try await withThrowingTaskGroup(of: (Bool, Bool).self) { group in
            for _ in 0..<(3 * k) {
                let guardian = CeilingGuard(
                    store: DynamoCeilingStore(table: try MotoTable.sibling(of: table)),
                    dailyLimit: k,
                    calendar: .utc
                )
                group.addTask {
                    if case .reserved(_, let warned, _) = try await guardian.reserve(paid: false, now: now) {
                        return (true, warned)
                    }
                    return (false, false)
                }
            }
            return try await group.reduce(into: [(Bool, Bool)]()) { $0.append($1) }
        }
        #expect(results.filter(\.0).count == k)
        #expect(results.filter(\.1).count == 1)
    }

    @Test func aReleaseAppliesOnceEvenAfterAnotherWriterTouchedTheRow() async throws {
        let table = try await MotoTable.make()
        let allowances = DynamoAllowanceStore(table: table)
        var held: [AllowanceReservation] = []
        for _ in 0..<3 {
            held.append(
                try #require(
                    try await allowances.reserve(subject: .device(device), feature: "f", day: "2026-11-30", limit: 5)
                )
            )
        }
        let ceiling = DynamoCeilingStore(table: table)
        var units: [CeilingReservation] = []
        for _ in 0..<3 { units.append(try #require(try await ceiling.reserve(day: "2026-11-30", limit: 5))) }
        // A's release, B's release (another writer on the row), then A's again (a late resend).
        for index in [0, 1, 0] {
            try await allowances.release(held[index])
            try await ceiling.release(units[index])
        }
        let quota = try await table.client.getItem(
            table.table,
            key: GateTable.key("DEVICE#\(device)", "QUOTA#f#2026-11-30"),
            deadline: .after(.seconds(5))
        )
        let total = try await table.client.getItem(
            table.table,
            key: GateTable.key("AI_BUDGET#2026-11-30", "TOTAL"),
            deadline: .after(.seconds(5))
        )
        #expect(quota?["count"]?.intValue == 1)
        #expect(total?["calls"]?.intValue == 1)
    }

    @Test func theMoneyCeilingReservesWorstCasesAndSettlesEachOnce() async throws {
        let table = try await MotoTable.make()
        let store = DynamoCeilingStore(table: table)
        var held: [CeilingReservation] = []
        for _ in 0..<4 {
            if case .reserved(let reservation) = try await store.reserve(
                day: "2026-11-30",
                limit: 0,
                worstCaseMicros: 400,
                budgetMicros: 1_000
            ) {
                held.append(reservation)
            }
        }
        #expect(held.count == 2)
        #expect(held.last?.costUsed == 800)
        #expect(try await store.giveBack(held[0], calls: 0, micros: 250))
        #expect(try await store.giveBack(held[0], calls: 0, micros: 250))  // a second attempt: already applied
        let fits = try await store.reserve(day: "2026-11-30", limit: 0, worstCaseMicros: 400, budgetMicros: 1_000)
        guard case .reserved(let third) = fits else {
            Issue.record("the settled room should hold one more worst case, got \(fits)")
            return
        }
        #expect(third.costUsed == 950)
        #expect(
            try await store.reserve(day: "2026-11-30", limit: 0, worstCaseMicros: 400, budgetMicros: 1_000)
                == .costReached
        )
    }

    /// The metered path reads the tier with what it already reads: the key lookup's one BatchGetItem, and
    /// the first-seen write's ALL_NEW answer; an unreadable tier is a store error, never a tier.
    @Test func theKeyLookupAndTheFirstSeenWriteReadTheTierWithoutARequestOfTheirOwn() async throws {
        let table = try await MotoTable.make()
        let keys = DynamoAppAttestKeyStore(table: table)
        let key = StoredAppAttestKey(
            keyId: [UInt8](repeating: 3, count: 32),
            publicKey: [4, 3],
            counter: 0,
            environment: "development"
        )
        #expect(try await keys.bind(deviceID: device, key: key, receipt: []) == .bound)
        #expect(try await keys.lookup(deviceID: device).profile == nil)
        #expect(
            try await DynamoDeviceTierStore(table: table).recordTier(
                deviceID: device,
                tier: .first,
                reason: "mark.clear",
                today: "2026-11-30"
            )
                == .first
        )
        let tally = RequestTally()
        let (found, profile) = try await RequestTally.$current.withValue(tally) {
            try await keys.lookup(deviceID: device)
        }
        #expect(found?.keyId == key.keyId)
        #expect(profile == DeviceProfile(firstSeen: "2026-11-30", tier: .first, tierReason: "mark.clear"))
        #expect(tally.requests == 1)

        let profiles = DynamoChallengeStore(table: table)
        let written = RequestTally()
        let read = try await RequestTally.$current.withValue(written) {
            try await profiles.profile(subject: .device(device), today: "2026-12-01")
        }
        #expect(read == DeviceProfile(firstSeen: "2026-11-30", tier: .first, tierReason: "mark.clear"))
        #expect(written.requests == 1)

        _ = try await table.client.updateItem(
            UpdateItem(
                table: table.table,
                key: GateTable.key("DEVICE#\(device)", "PROFILE"),
                update: UpdateExpression(set: ["\(name: "tier") = \(value: .s("gold"))"])
            ),
            deadline: .after(.seconds(5))
        )
        await #expect(throws: StoreError.self) { try await keys.lookup(deviceID: device) }
        await #expect(throws: StoreError.self) {
            try await profiles.profile(subject: .device(device), today: "2026-12-01")
        }
        await #expect(throws: StoreError.self) {
            try await DynamoDeviceTierStore(table: table).storedTier(deviceID: device)
        }
    }

    @Test func firstSeenIsRecordedOnce() async throws {
        let store = DynamoChallengeStore(table: try await MotoTable.make())
        #expect(try await store.firstSeenDay(subject: .user("u1"), today: "2026-11-30") == "2026-11-30")
        #expect(try await store.firstSeenDay(subject: .user("u1"), today: "2026-12-01") == "2026-11-30")
    }
}
