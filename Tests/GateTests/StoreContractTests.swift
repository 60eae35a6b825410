import AWSJSON
import AttestCore
import CivilTime
import DeviceCheck
import FoundationEssentials
import PlayIntegrity
import TestSupport
import Testing

@testable import Gate

/// The store a contract check runs against: the in-memory fake the pure tests use, its DynamoDB twin on
/// moto, and the twin with every write resent after its first send landed (an answer lost on the way
/// back). The same checks run against all three, so a fake can never promise what the real store does not.
///
/// To add a check: write one `@Test(arguments: StoreKind.all)` function that makes its store with
/// `allowances(fixture)`, `ceiling(fixture)`, `profiles(fixture)`, `tiers(fixture)`, `decodeBudget(fixture)`,
/// `decodeQuota(fixture)` or `deviceCheckBudget(fixture)` and states the contract of the protocol
/// (AllowanceStore.swift and CeilingStore.swift in `Sources/5-Layers/Gate/Metering`, DeviceTierStore.swift in `Sources/5-Layers/Gate/Tiers`,
/// DeviceDailyBudget.swift in `Sources/2-Core/AttestCore`, DecodeQuotaGuard.swift in `Sources/4-Protocols/PlayIntegrity`, DeviceCheckBudget.swift
/// in `Sources/4-Protocols/DeviceCheck`); `fixture.expectResends()` at its end shows the resend variant
/// really resent. To add a store, add a factory that returns the fake or its twin.
enum StoreKind: String, CustomTestStringConvertible, Sendable {
    case inMemory = "in-memory"
    case dynamo = "DynamoDB on moto"
    case dynamoResending = "DynamoDB on moto, every write resent"

    /// Every kind that can run here: the moto ones only where `make test` started moto.
    static var all: [StoreKind] { MotoTable.endpoint == nil ? [.inMemory] : [.inMemory, .dynamo, .dynamoResending] }

    var testDescription: String { rawValue }

    /// One per kind and test: the resend variant's hook, and where its table is.
    final class Fixture: Sendable {
        let kind: StoreKind
        let hook = ResendingTransport(resending: ["UpdateItem", "PutItem"])
        let table: GateTable?

        init(_ kind: StoreKind) async throws {
            self.kind = kind
            switch kind {
            case .inMemory: table = nil
            case .dynamo: table = try await MotoTable.make()
            case .dynamoResending: table = try await MotoTable.make(hook: hook)
            }
        }

        /// A view of the same store for a parallel caller (another Lambda instance); in memory, itself.
        func sibling() throws -> GateTable? {
            guard let table else { return nil }
            return try MotoTable.sibling(of: table, hook: kind == .dynamoResending ? hook : nil)
        }

        /// The resend variant must have resent something, or it proved nothing more than the plain one.
        func expectResends(sourceLocation: SourceLocation = #_sourceLocation) {
            if kind == .dynamoResending { #expect(hook.resent > 0, sourceLocation: sourceLocation) }
        }
    }
}

@Suite struct StoreContractTests {
    static let day = "2026-11-30"
    let device = Subject.device("5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10")

    func allowances(_ fixture: StoreKind.Fixture, memory: InMemoryAllowanceStore = .init()) -> any AllowanceStore {
        fixture.table.map { DynamoAllowanceStore(table: $0) } ?? memory
    }

    func ceiling(_ fixture: StoreKind.Fixture, memory: InMemoryCeilingStore = .init()) -> any CeilingStore {
        fixture.table.map { DynamoCeilingStore(table: $0) } ?? memory
    }

    func profiles(_ fixture: StoreKind.Fixture) -> any ProfileStore {
        fixture.table.map { DynamoChallengeStore(table: $0) } ?? InMemoryChallengeStore()
    }

    /// The tier store and, over the same rows, the profile store that reads tiers back.
    func tiers(_ fixture: StoreKind.Fixture) -> (any DeviceTierStore, any ProfileStore) {
        if let table = fixture.table {
            return (DynamoDeviceTierStore(table: table), DynamoChallengeStore(table: table))
        }
        let memory = InMemoryDeviceTierStore()
        return (memory, InMemoryChallengeStore(tiers: memory))
    }

    func decodeBudget(_ fixture: StoreKind.Fixture, perDevice: Int) -> any DeviceDailyBudget {
        fixture.table.map { DynamoDeviceDailyBudget.playDecodes(table: $0, perDevice: perDevice, calendar: .utc) }
            ?? InMemoryDecodeBudget(perDevice: perDevice)
    }

    func deviceCheckBudget(_ fixture: StoreKind.Fixture, perDevice: Int) -> any DeviceDailyBudget {
        fixture.table.map {
            DynamoDeviceDailyBudget.deviceCheckQueries(table: $0, perDevice: perDevice, calendar: .utc)
        }
            ?? InMemoryDeviceCheckBudget(perDevice: perDevice)
    }

    func decodeQuota(_ fixture: StoreKind.Fixture) -> any DecodeQuotaStore {
        fixture.table.map { DynamoDecodeQuotaStore(table: $0) } ?? InMemoryDecodeQuotaStore()
    }

    // MARK: AllowanceStore

    @Test(arguments: StoreKind.all)
    func anAllowanceCountsDownToItsLimitPerSubjectFeatureAndDay(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = allowances(fixture)
        var remaining: [Int?] = []
        for _ in 0..<4 {
            remaining.append(
                try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 3)?.remaining
            )
        }
        #expect(remaining == [2, 1, 0, nil])
        // Another feature, day or subject has its own row.
        #expect(
            try await store.reserve(subject: device, feature: "generation", day: Self.day, limit: 3)?.remaining == 2
        )
        #expect(try await store.reserve(subject: device, feature: "tutor", day: "2026-12-01", limit: 3)?.remaining == 2)
        #expect(
            try await store.reserve(subject: .user("u1"), feature: "tutor", day: Self.day, limit: 3)?.remaining == 2
        )
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func aReleasedUnitCanBeTakenAgainOnce(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = allowances(fixture)
        let first = try #require(try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2))
        _ = try #require(try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2))
        try await store.release(first)
        #expect(try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2)?.remaining == 0)
        #expect(try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2) == nil)
        fixture.expectResends()
    }

    /// More releases than reservations never make room beyond the limit: the count stops at zero.
    @Test(arguments: StoreKind.all)
    func releasesNeverTakeTheCountBelowZero(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = allowances(fixture)
        let unit = try #require(try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2))
        // The unit's own release, resent, then releases under other call IDs: one unit back in all.
        for _ in 0..<2 { try await store.release(unit) }
        for index in 0..<2 {
            try await store.release(
                AllowanceReservation(
                    subject: unit.subject,
                    feature: unit.feature,
                    day: unit.day,
                    remaining: unit.remaining,
                    callID: "other-\(index)"
                )
            )
        }
        // A release on a row never reserved gives no credit either.
        let never = AllowanceReservation(
            subject: .user("never"),
            feature: "tutor",
            day: Self.day,
            remaining: 0,
            callID: "never-reserved"
        )
        try await store.release(never)
        var admitted = 0
        for _ in 0..<4 {
            if try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: 2) != nil {
                admitted += 1
            }
        }
        #expect(admitted == 2)
        #expect(try await store.reserve(subject: .user("never"), feature: "tutor", day: Self.day, limit: 1) != nil)
        #expect(try await store.reserve(subject: .user("never"), feature: "tutor", day: Self.day, limit: 1) == nil)
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func parallelReservationsAdmitExactlyTheLimit(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let memory = InMemoryAllowanceStore()
        let n = 4
        let admitted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<(3 * n) {
                let store: any AllowanceStore = try fixture.sibling().map { DynamoAllowanceStore(table: $0) } ?? memory
                let device = device
                group.addTask {
                    try await store.reserve(subject: device, feature: "tutor", day: Self.day, limit: n) != nil
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        // Never past the limit. Resent among parallel writers, a row keeps only the latest token, so a
        // resend can count its unit twice and admit fewer (docs/gate.md, "Known limits").
        if kind == .dynamoResending {
            #expect(admitted >= 1 && admitted <= n)
        } else {
            #expect(admitted == n)
        }
        fixture.expectResends()
    }

    // MARK: CeilingStore

    @Test(arguments: StoreKind.all)
    func theCeilingCountsEveryCallUpToItsLimit(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = ceiling(fixture)
        var used: [Int?] = []
        for _ in 0..<4 { used.append(try await store.reserve(day: Self.day, limit: 3)?.used) }
        #expect(used == [1, 2, 3, nil])
        #expect(try await store.reserve(day: "2026-12-01", limit: 3)?.used == 1)
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func ceilingReleasesGiveUnitsBackButNeverBelowZero(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = ceiling(fixture)
        let unit = try #require(try await store.reserve(day: Self.day, limit: 2))
        for _ in 0..<3 { try await store.release(unit) }
        var used: [Int?] = []
        for _ in 0..<3 { used.append(try await store.reserve(day: Self.day, limit: 2)?.used) }
        #expect(used == [1, 2, nil])
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func theWarningIsClaimedOnceAndReadBackByLaterReservations(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = ceiling(fixture)
        #expect(try await store.reserve(day: Self.day, limit: 5)?.warned == false)
        #expect(try await store.claimWarning(day: Self.day))
        #expect(try await !store.claimWarning(day: Self.day))
        #expect(try await store.reserve(day: Self.day, limit: 5)?.warned == true)
        // Another day has its own flag.
        #expect(try await store.claimWarning(day: "2026-12-01"))
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func parallelWarningClaimsHaveExactlyOneWinner(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let memory = InMemoryCeilingStore()
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                let store: any CeilingStore = try fixture.sibling().map { DynamoCeilingStore(table: $0) } ?? memory
                group.addTask { try await store.claimWarning(day: Self.day) }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
        fixture.expectResends()
    }

    // MARK: ProfileStore

    @Test(arguments: StoreKind.all)
    func theFirstSeenDayIsRecordedOnce(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = profiles(fixture)
        #expect(try await store.firstSeenDay(subject: .user("u1"), today: Self.day) == Self.day)
        #expect(try await store.firstSeenDay(subject: .user("u1"), today: "2026-12-01") == Self.day)
        #expect(try await store.firstSeenDay(subject: device, today: "2026-12-01") == "2026-12-01")
        fixture.expectResends()
    }

    // MARK: DeviceTierStore

    /// Every move `DeviceTier.mayMove` allows, and none it refuses: each write answers the tier that stands.
    @Test(arguments: StoreKind.all)
    func aTierMovesOnlyAsMayMoveAllowsAndEachWriteAnswersTheTierThatStands(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let (store, _) = tiers(fixture)
        // (written, answered): absent → unknown → unknown → first; first refuses unknown and first; first →
        // repeat; repeat refuses everything.
        let moves: [(DeviceTier, DeviceTier)] = [
            (.unknown, .unknown), (.unknown, .unknown), (.first, .first), (.unknown, .first), (.first, .first),
            (.repeat, .repeat), (.first, .repeat), (.unknown, .repeat), (.repeat, .repeat),
        ]
        let id = "9e0b7d1c-1111-4c39-9a55-0d3b1b7e2f10"
        #expect(try await store.storedTier(deviceID: id) == nil)
        for (index, (written, answered)) in moves.enumerated() {
            let got = try await store.recordTier(deviceID: id, tier: written, reason: "r\(index)", today: Self.day)
            #expect(got == answered, "move \(index): \(written)")
            #expect(try await store.storedTier(deviceID: id) == answered, "move \(index): \(written)")
        }
        // Straight to repeat from nothing, and unknown to first.
        #expect(
            try await store.recordTier(deviceID: "r", tier: .repeat, reason: "mark.set", today: Self.day) == .repeat
        )
        #expect(
            try await store.recordTier(deviceID: "r", tier: .first, reason: "mark.clear", today: Self.day) == .repeat
        )
        fixture.expectResends()
    }

    /// A `first` a mark made carries the mark's month (`tier_marked`), and only a newer mark's `first`
    /// renews it; a `repeat` is never renewed, and a `first` with no month is renewed by any mark.
    @Test(arguments: StoreKind.all)
    func aFirstIsRenewedOnlyByANewerMark(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let (store, _) = tiers(fixture)
        let id = "9e0b7d1c-2222-4c39-9a55-0d3b1b7e2f10"
        func write(_ tier: DeviceTier, _ month: String?, reason: String = "mark.clear") async throws -> DeviceTier {
            try await store.recordTier(deviceID: id, tier: tier, reason: reason, today: Self.day, marked: month)
        }
        #expect(try await write(.first, "2026-08") == .first)
        #expect(try await store.storedProfile(deviceID: id)?.tierMarked == "2026-08")
        // The same month, or an older one, does not move it; a newer one renews it.
        #expect(try await write(.first, "2026-08", reason: "mark.renewed") == .first)
        #expect(try await write(.first, "2026-07", reason: "mark.renewed") == .first)
        #expect(try await store.storedProfile(deviceID: id)?.tierReason == "mark.clear")
        #expect(try await write(.first, "2026-12", reason: "mark.renewed") == .first)
        let renewed = try await store.storedProfile(deviceID: id)
        #expect(renewed?.tierMarked == "2026-12" && renewed?.tierReason == "mark.renewed")
        // A first with no month (written before `tier_marked`, or a legacy key) is renewed by any mark.
        #expect(
            try await store.recordTier(deviceID: "legacy", tier: .first, reason: "tier.legacy_key", today: Self.day)
                == .first
        )
        #expect(
            try await store.recordTier(
                deviceID: "legacy",
                tier: .first,
                reason: "mark.renewed",
                today: Self.day,
                marked: "2026-12"
            ) == .first
        )
        #expect(try await store.storedProfile(deviceID: "legacy")?.tierMarked == "2026-12")
        // A repeat is never renewed.
        #expect(try await write(.repeat, nil, reason: "mark.set") == .repeat)
        #expect(try await write(.first, "2027-01", reason: "mark.renewed") == .repeat)
        fixture.expectResends()
    }

    /// The tier lives on the profile row: the profile read answers it with its reason, and the tier write
    /// stamps `first_seen` only on a row without one.
    @Test(arguments: StoreKind.all)
    func theTierAndItsReasonAreReadWithTheProfileAndKeepItsFirstSeenDay(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let (store, profiles) = tiers(fixture)
        // A device seen before its tier: the tier write keeps its first-seen day.
        #expect(try await profiles.firstSeenDay(subject: device, today: Self.day) == Self.day)
        guard case .device(let seen) = device else { return }
        #expect(
            try await store.recordTier(deviceID: seen, tier: .first, reason: "mark.clear", today: "2026-12-01")
                == .first
        )
        #expect(
            try await profiles.profile(subject: device, today: "2026-12-02")
                == DeviceProfile(firstSeen: Self.day, tier: .first, tierReason: "mark.clear")
        )
        // A tier written first stamps the first-seen day; a refused move keeps the stored reason.
        #expect(
            try await store.recordTier(deviceID: "fresh", tier: .repeat, reason: "mark.set", today: "2026-12-01")
                == .repeat
        )
        #expect(
            try await store.recordTier(deviceID: "fresh", tier: .first, reason: "mark.clear", today: "2026-12-02")
                == .repeat
        )
        #expect(
            try await profiles.profile(subject: .device("fresh"), today: "2026-12-03")
                == DeviceProfile(firstSeen: "2026-12-01", tier: .repeat, tierReason: "mark.set")
        )
        // A device with no tier reads none; a user never has one.
        #expect(
            try await profiles.profile(subject: .device("none"), today: Self.day) == DeviceProfile(firstSeen: Self.day)
        )
        #expect(try await profiles.profile(subject: .user("u1"), today: Self.day) == DeviceProfile(firstSeen: Self.day))
        fixture.expectResends()
    }

    /// Two writers racing on one device ID (two registrations, a registration and a risk flag) end as
    /// `mayMove` orders them whichever lands first: `repeat` over anything, a settled `first` over `unknown`;
    /// each is answered the tier that stands after its own write.
    @Test(arguments: StoreKind.all)
    func racingTierWritersEndOnTheTierMayMoveOrders(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let memory = InMemoryDeviceTierStore()
        let pairs: [(DeviceTier, DeviceTier, DeviceTier)] = [
            (.first, .repeat, .repeat), (.unknown, .repeat, .repeat), (.first, .unknown, .first),
            (.first, .first, .first),
        ]
        for round in 0..<3 {
            for (index, (a, b, settled)) in pairs.enumerated() {
                let id = "race-\(round)-\(index)"
                let answers = try await withThrowingTaskGroup(of: (DeviceTier, DeviceTier).self) { group in
                    for tier in [a, b] {
                        let store: any DeviceTierStore =
                            try fixture.sibling().map { DynamoDeviceTierStore(table: $0) } ?? memory
                        group.addTask {
                            (
                                tier,
                                try await store.recordTier(deviceID: id, tier: tier, reason: "race", today: Self.day)
                            )
                        }
                    }
                    return try await group.reduce(into: [(DeviceTier, DeviceTier)]()) { $0.append($1) }
                }
                let reader: any DeviceTierStore = fixture.table.map { DynamoDeviceTierStore(table: $0) } ?? memory
                let stored = try await reader.storedTier(deviceID: id)
                #expect(stored == settled, "\(a) racing \(b)")
                // The writer of the tier that settles is answered it, whichever order they landed in.
                for (written, answered) in answers where written == settled {
                    #expect(answered == settled, "\(a) racing \(b): \(written) answered \(answered)")
                }
            }
        }
        fixture.expectResends()
    }

    /// A write whose answer is lost and is resent after another writer landed on the row: the resend is
    /// judged against that writer's tier, never reports its own move over it, and the row keeps the move.
    @Test(arguments: StoreKind.all.filter { $0 != .inMemory })
    func aTierResentAfterAnotherWriterLandedReportsTheTierThatStands(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let table = try #require(fixture.table)
        let held = ResendingTransport(resending: ["UpdateItem"], holdingResendFor: .milliseconds(400))
        let slow = DynamoDeviceTierStore(table: try MotoTable.sibling(of: table, hook: held))
        let other = DynamoDeviceTierStore(table: try MotoTable.sibling(of: table))
        // A registration's `first` lands, its answer is lost; a flag lands before the resend.
        async let first = slow.recordTier(deviceID: "held", tier: .first, reason: "mark.clear", today: Self.day)
        try await Task.sleep(for: .milliseconds(150))
        #expect(
            try await other.recordTier(deviceID: "held", tier: .repeat, reason: "risk.flagged", today: Self.day)
                == .repeat
        )
        #expect(try await first == .repeat)
        #expect(held.resent == 1)
        #expect(try await other.storedTier(deviceID: "held") == .repeat)
        // The resend of a move that still stands finds its own token: answered as written.
        let resending = DynamoDeviceTierStore(
            table: try MotoTable.sibling(of: table, hook: ResendingTransport(resending: ["UpdateItem"]))
        )
        #expect(
            try await resending.recordTier(deviceID: "own", tier: .unknown, reason: "mark.unavailable", today: Self.day)
                == .unknown
        )
        #expect(
            try await resending.recordTier(deviceID: "own", tier: .first, reason: "mark.clear", today: Self.day)
                == .first
        )
        #expect(try await other.storedTier(deviceID: "own") == .first)
    }

    // MARK: DeviceDailyBudget and DecodeQuotaStore (Play Integrity)

    @Test(arguments: StoreKind.all)
    func aDevicesDecodeBudgetIsPerDay(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let budget = decodeBudget(fixture, perDevice: 2)
        try await Self.expectTwoADayPerDevice { try await budget.spendOne(deviceID: $0, now: $1) == .spent }
        fixture.expectResends()
    }

    static let noon = Date(timeIntervalSince1970: 1_796_040_000)  // 2026-11-30T12:00Z

    /// The contract of a per-device daily budget of 2 (`spend` says whether a unit was spent): two units
    /// per device ID and UTC day, each device its own, the next day a new budget.
    static func expectTwoADayPerDevice(
        _ spend: (String, Date) async throws -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        var answers: [Bool] = []
        for _ in 0..<3 { answers.append(try await spend("d1", noon)) }
        #expect(answers == [true, true, false], sourceLocation: sourceLocation)
        #expect(try await spend("d2", noon), sourceLocation: sourceLocation)
        // The next (UTC) day starts a new budget; the same day later on does not.
        #expect(try await !spend("d1", noon.addingTimeInterval(11 * 3600)), sourceLocation: sourceLocation)
        #expect(try await spend("d1", noon.addingTimeInterval(13 * 3600)), sourceLocation: sourceLocation)
    }

    // MARK: DeviceDailyBudget

    @Test(arguments: StoreKind.all)
    func aDevicesDeviceCheckBudgetIsPerDeviceAndDay(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let budget = deviceCheckBudget(fixture, perDevice: 2)
        try await Self.expectTwoADayPerDevice { try await budget.spendOne(deviceID: $0, now: $1) == .spent }
        // Another Lambda instance spends from the same budget.
        if let sibling = try fixture.sibling() {
            let other = DynamoDeviceDailyBudget.deviceCheckQueries(table: sibling, perDevice: 2, calendar: .utc)
            #expect(try await other.spendOne(deviceID: "d2", now: Self.noon) == .spent)
            #expect(try await other.spendOne(deviceID: "d2", now: Self.noon) == .exhausted)
        }
        fixture.expectResends()
    }

    @Test(arguments: StoreKind.all)
    func theDecodeQuotaCountsToItsCapAndItsWarningIsClaimedOnce(_ kind: StoreKind) async throws {
        let fixture = try await StoreKind.Fixture(kind)
        let store = decodeQuota(fixture)
        var counts: [DecodeQuotaCount] = []
        for _ in 0..<3 { counts.append(try await store.incrementDecodeCount(day: Self.day, limit: 2)) }
        #expect(counts == [.counted(count: 1, warned: false), .counted(count: 2, warned: false), .limitReached])
        #expect(try await store.claimWarning(day: Self.day))
        #expect(try await !store.claimWarning(day: Self.day))
        #expect(try await store.incrementDecodeCount(day: Self.day, limit: 3) == .counted(count: 3, warned: true))
        #expect(try await store.incrementDecodeCount(day: "2026-12-01", limit: 3) == .counted(count: 1, warned: false))
        fixture.expectResends()
    }
}
