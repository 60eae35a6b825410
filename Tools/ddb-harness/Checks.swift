import AWSJSON
import AttestCore
import CivilTime
import Crypto
import DeviceCheck
import DynamoDB
import FoundationEssentials
import Gate
import PlayIntegrity

/// What one run of a write saw: whether the call's answer and the row are what one send would have left.
struct Observation: Sendable {
    let correct: Bool
    let text: String
}

/// One run of one write: `plain` prepares and reads back (never resent); `writer` performs the write under
/// test with the safety and resend method of the run; `arm` must be called right before that write (it arms
/// the loss proxy; a no-op for the resending transport).
struct RunContext: Sendable {
    let harness: Harness
    let plain: GateTable
    let writer: GateTable
    let ids: RunIDs
    let now: Date
    let arm: @Sendable () async throws -> Void

    func row(_ key: Item) async throws -> Item? { try await harness.row(key) }
    func count(_ key: Item, _ attribute: String) async throws -> Int {
        Int(try await row(key)?[attribute]?.intValue ?? 0)
    }
}

/// One conditional write of the product.
struct WriteCheck: Sendable {
    /// The name used by `--only` and `--break`.
    let slug: String
    /// The write, as printed.
    let write: String
    /// Text of the request body that picks the write under test (its key), for the loss proxy and the replay.
    let match: @Sendable (RunIDs) -> String
    /// Runs the write once through `writer` (resent by the run's method) and judges what it left behind.
    let run: @Sendable (RunContext) async throws -> Observation
    /// A pre-fix form of the write, written in the harness, run under the same resend as a second control
    /// that must break too. For idempotent writes (`tokenlessBreaks == false`) it is the only control that
    /// counts: the token-less product write is run and reported, but cannot break.
    let preFixControl: (@Sendable (RunContext) async throws -> Observation)?
    /// Whether the token-less product write (`TokenlessTransport`) can break under a resend.
    let tokenlessBreaks: Bool
    /// Matching `UpdateItem`s the loss proxy lets through before losing one (the write under test is not
    /// the call's first write on that key).
    let lossSkip: Int
    /// Whether the product write is a `TransactWriteItems` (a give-back with its marker, `GiveBack.swift`).
    let transactional: Bool

    init(
        _ slug: String,
        _ write: String,
        match: @escaping @Sendable (RunIDs) -> String,
        run: @escaping @Sendable (RunContext) async throws -> Observation,
        preFixControl: (@Sendable (RunContext) async throws -> Observation)? = nil,
        tokenlessBreaks: Bool = true,
        lossSkip: Int = 0,
        transactional: Bool = false
    ) {
        self.lossSkip = lossSkip
        self.transactional = transactional
        self.tokenlessBreaks = tokenlessBreaks
        self.slug = slug
        self.write = write
        self.match = match
        self.run = run
        self.preFixControl = preFixControl
    }
}

enum Keys {
    static func device(_ id: String, _ sk: String) -> Item { GateTable.key("DEVICE#\(id)", sk) }
    static func owner(_ keyId: [UInt8]) -> Item { GateTable.key("APPATTEST_KEY#\(Bytes.base64URL(keyId))", "OWNER") }
    static func allowance(_ id: String, _ day: String) -> Item {
        GateTable.key("DEVICE#\(id)", "QUOTA#generation#\(day)")
    }
    /// Ceiling shard `shard` (docs/gate.md, "The ceiling under contention"), as the store keys it.
    static func ceiling(_ day: String, shard: Int = 0) -> Item { DynamoCeilingStore.key(day, shard: shard) }
    static func unproven(_ day: String) -> Item { DynamoCeilingStore.unprovenKey(day) }
    static func playQuota(_ day: String) -> Item { GateTable.key("PLAY_QUOTA#\(day)", "TOTAL") }
    /// The JSON text of a sort key in a request body (`"ATTEST_KEY"` is also inside `APPATTEST_KEY#…`).
    static func sortKey(_ sk: String) -> String { "\"\(sk)\"" }
}

func key(_ seed: UInt8) -> StoredAppAttestKey {
    var keyId = SecureRandom().bytes(32)
    keyId[0] = seed
    return StoredAppAttestKey(keyId: keyId, publicKey: [4, seed], counter: 0, environment: "development")
}

extension WriteCheck {
    static let all: [WriteCheck] = [
        challengeSpend, challengeIssueCount, challengeIssueNewDay, keyOwnerClaim, keyRebind, counterAdvance,
        allowanceReserve,
        allowanceRelease, ceilingReserve, ceilingRelease, ceilingSettle, unprovenReserve, warningFlag, decodeBudget,
        playQuota,
        deviceCheckBudget, firstSeen, tierRecord, tierRenew,
    ]

    static let challengeSpend = WriteCheck(
        "challenge_spend",
        "challenge spend",
        match: { _ in "ATTEST_CHALLENGE#" },
        run: { context in
            let issued = try await DynamoChallengeStore(table: context.plain)
                .issue(deviceID: context.ids.id, replacingSpent: true, now: context.now)
            try await context.arm()
            let spent = try await DynamoChallengeStore(table: context.writer)
                .spend(deviceID: context.ids.id, challenge: issued.bytes, now: context.now)
            let again = try await DynamoChallengeStore(table: context.plain)
                .spend(deviceID: context.ids.id, challenge: issued.bytes, now: context.now)
            if !spent { return Observation(correct: false, text: "the call refused its own spend (a replay)") }
            if again { return Observation(correct: false, text: "spent, and a later spend also won: double-spent") }
            return Observation(correct: true, text: "spent once; a later spend is refused")
        },
        preFixControl: { context in
            // The pre-fix spend: a fixed spent marker under the same condition; a refusal means "already spent".
            let issued = try await DynamoChallengeStore(table: context.plain)
                .issue(deviceID: context.ids.id, replacingSpent: true, now: context.now)
            let now = Int64(context.now.timeIntervalSince1970)
            try await context.arm()
            do {
                try await context.writer.client.updateItem(
                    UpdateItem(
                        table: context.writer.table,
                        key: Keys.device(context.ids.id, "ATTEST_CHALLENGE#\(Bytes.base64URL(issued.bytes))"),
                        update: UpdateExpression(set: ["\(name: "spent_by") = \(value: .s("spent"))"]),
                        condition:
                            "attribute_exists(PK) AND attribute_not_exists(\(name: "spent_by")) AND \(name: "expires_at") > \(value: .number(now))"
                    ),
                    deadline: .after(.seconds(5))
                )
                return Observation(correct: true, text: "spent")
            } catch let error as DynamoDBError where error.reason == .conditionalCheckFailed {
                return Observation(correct: false, text: "refused its own spend as already spent")
            }
        }
    )

    static let challengeIssueCount = WriteCheck(
        "challenge_issue_count",
        "challenge issue count",
        match: { _ in Keys.sortKey("PROFILE") },
        run: { context in
            let profile = Keys.device(context.ids.id, "PROFILE")
            _ = try await DynamoChallengeStore(table: context.plain)
                .issue(deviceID: context.ids.id, replacingSpent: false, now: context.now)
            try await context.arm()
            do {
                _ = try await DynamoChallengeStore(table: context.writer)
                    .issue(deviceID: context.ids.id, replacingSpent: false, now: context.now)
            } catch {
                return Observation(correct: false, text: "the second issue was refused: \(error)")
            }
            let count = try await context.count(profile, "issued_count")
            return Observation(correct: count == 2, text: "two issues counted as \(count)")
        }
    )

    /// The day's first issue: the same-day write is refused (yesterday's count), the new-day write starts
    /// the count at 1. The loss hits the new-day write (the second `UpdateItem` on the profile row).
    static let challengeIssueNewDay = WriteCheck(
        "challenge_issue_new_day",
        "challenge issue count (new day)",
        match: { _ in Keys.sortKey("PROFILE") },
        run: { context in
            let profile = Keys.device(context.ids.id, "PROFILE")
            _ = try await DynamoChallengeStore(table: context.plain)
                .issue(deviceID: context.ids.id, replacingSpent: false, now: context.now.addingTimeInterval(-86_400))
            try await context.arm()
            do {
                _ = try await DynamoChallengeStore(table: context.writer)
                    .issue(deviceID: context.ids.id, replacingSpent: false, now: context.now)
            } catch {
                return Observation(correct: false, text: "the day's first issue was refused: \(error)")
            }
            let count = try await context.count(profile, "issued_count")
            return Observation(correct: count == 1, text: "the day's first issue counted as \(count)")
        },
        lossSkip: 1
    )

    static let keyOwnerClaim = WriteCheck(
        "key_owner_claim",
        "key owner claim",
        match: { _ in Keys.sortKey("OWNER") },
        run: { context in
            let fresh = key(1)
            try await context.arm()
            let binding = try await DynamoAppAttestKeyStore(table: context.writer)
                .bind(deviceID: context.ids.id, key: fresh, receipt: [])
            let owner = try await context.row(Keys.owner(fresh.keyId))?["device"]?.stringValue
            guard binding != nil, owner == context.ids.id else {
                return Observation(correct: false, text: "the device lost its own key (claim refused)")
            }
            return Observation(correct: true, text: "the key is claimed once, by this device")
        },
        preFixControl: { context in
            // The pre-fix claim: first writer wins by a condition, and a refusal means "someone else's key".
            let fresh = key(1)
            try await context.arm()
            do {
                try await context.writer.client.updateItem(
                    UpdateItem(
                        table: context.writer.table,
                        key: Keys.owner(fresh.keyId),
                        update: UpdateExpression(set: ["\(name: "device") = \(value: .s(context.ids.id))"]),
                        condition: "attribute_not_exists(\(name: "device"))"
                    ),
                    deadline: .after(.seconds(5))
                )
                return Observation(correct: true, text: "claimed")
            } catch let error as DynamoDBError where error.reason == .conditionalCheckFailed {
                return Observation(correct: false, text: "refused its own claim: the key looks like another device's")
            }
        },
        tokenlessBreaks: false
    )

    static let keyRebind = WriteCheck(
        "key_bind",
        "key bind/rebind",
        match: { _ in Keys.sortKey("ATTEST_KEY") },
        run: { context in
            let old = key(1)
            let new = key(2)
            guard
                try await DynamoAppAttestKeyStore(table: context.plain)
                    .bind(deviceID: context.ids.id, key: old, receipt: []) == .bound
            else { throw HarnessError("setup: first bind was not .bound") }
            try await context.arm()
            let binding = try await DynamoAppAttestKeyStore(table: context.writer)
                .bind(deviceID: context.ids.id, key: new, receipt: [])
            let stored = try await context.row(Keys.device(context.ids.id, "ATTEST_KEY"))?["key_id"]?.bytesValue
            let text = "a new key over the old one reported as \(binding.map(\.rawValue) ?? "nil")"
            return Observation(correct: binding == .rebound && stored == new.keyId, text: text)
        }
    )

    static let counterAdvance = WriteCheck(
        "counter_advance",
        "counter advance",
        match: { _ in Keys.sortKey("ATTEST_KEY") },
        run: { context in
            let bound = key(1)
            let store = DynamoAppAttestKeyStore(table: context.plain)
            _ = try await store.bind(deviceID: context.ids.id, key: bound, receipt: [])
            guard try await store.advanceCounter(deviceID: context.ids.id, keyId: bound.keyId, to: 1) else {
                throw HarnessError("setup: counter 0 → 1 refused")
            }
            try await context.arm()
            let advanced = try await DynamoAppAttestKeyStore(table: context.writer)
                .advanceCounter(deviceID: context.ids.id, keyId: bound.keyId, to: 2)
            let counter = try await context.count(Keys.device(context.ids.id, "ATTEST_KEY"), "counter")
            if !advanced {
                return Observation(
                    correct: false,
                    text: "1 → 2 refused as a replay (counter \(counter)): the call rejects its own assertion"
                )
            }
            return Observation(correct: counter == 2, text: "1 → 2 accepted once (counter \(counter))")
        }
    )

    static let allowanceReserve = WriteCheck(
        "allowance_reserve",
        "allowance reserve",
        match: { ids in "QUOTA#generation#\(ids.day)" },
        run: { context in
            try await context.arm()
            let reservation = try await DynamoAllowanceStore(table: context.writer)
                .reserve(subject: .device(context.ids.id), feature: "generation", day: context.ids.day, limit: 3)
            let count = try await context.count(Keys.allowance(context.ids.id, context.ids.day), "count")
            guard let reservation else {
                return Observation(correct: false, text: "the first call was refused (count \(count))")
            }
            return Observation(
                correct: count == 1 && reservation.remaining == 2,
                text: "one call counted as \(count) (remaining \(reservation.remaining) of 3)"
            )
        }
    )

    static let allowanceRelease = WriteCheck(
        "allowance_release",
        "allowance release (marker + decrement, one transaction)",
        match: { ids in "QUOTA#generation#\(ids.day)" },
        run: { context in
            let store = DynamoAllowanceStore(table: context.plain)
            let subject = Subject.device(context.ids.id)
            var held: [AllowanceReservation] = []
            for _ in 0..<2 {
                guard
                    let reservation = try await store.reserve(
                        subject: subject,
                        feature: "generation",
                        day: context.ids.day,
                        limit: 3
                    )
                else { throw HarnessError("setup: reservation refused") }
                held.append(reservation)
            }
            try await context.arm()
            // The writer's store mints nothing here: the reservation (and its call ID) came from the setup.
            try await DynamoAllowanceStore(table: context.writer).release(held[1])
            let count = try await context.count(Keys.allowance(context.ids.id, context.ids.day), "count")
            return Observation(correct: count == 1, text: "2 reserved, 1 released: count \(count)")
        },
        transactional: true
    )

    static let ceilingReserve = WriteCheck(
        "ceiling_reserve",
        "ceiling reserve (one call and its worst case, 700 µ$)",
        match: { ids in "AI_BUDGET#\(ids.day)" },
        run: { context in
            try await context.arm()
            let attempt = try await DynamoCeilingStore(table: context.writer).reserve(
                day: context.ids.day,
                limit: 10,
                worstCaseMicros: 700,
                budgetMicros: 1_000_000
            )
            let row = try await context.row(Keys.ceiling(context.ids.day))
            let calls = Int(row?["calls"]?.intValue ?? 0)
            let cost = Int(row?["cost"]?.intValue ?? 0)
            guard case .reserved(let reservation) = attempt else {
                return Observation(correct: false, text: "the first call was refused (calls \(calls))")
            }
            return Observation(
                correct: calls == 1 && cost == 700 && reservation.used == 1,
                text: "one call counted as \(calls), cost \(cost) (reported used \(reservation.used))"
            )
        }
    )

    /// The unproven pool's sub-ceiling (docs/gate.md, "The unproven pool"): the ceiling's write on its own row.
    static let unprovenReserve = WriteCheck(
        "unproven_reserve",
        "unproven pool reserve (one call and its worst case, 700 µ$)",
        match: { ids in "AI_UNPROVEN#\(ids.day)" },
        run: { context in
            try await context.arm()
            let attempt = try await DynamoCeilingStore.unprovenPool(table: context.writer).reserve(
                day: context.ids.day,
                limit: 10,
                worstCaseMicros: 700,
                budgetMicros: 1_000_000
            )
            let row = try await context.row(Keys.unproven(context.ids.day))
            let calls = Int(row?["calls"]?.intValue ?? 0)
            let cost = Int(row?["cost"]?.intValue ?? 0)
            guard case .reserved = attempt else {
                return Observation(correct: false, text: "the first call was refused (calls \(calls))")
            }
            return Observation(correct: calls == 1 && cost == 700, text: "one call counted as \(calls), cost \(cost)")
        }
    )

    static let ceilingRelease = WriteCheck(
        "ceiling_release",
        "ceiling release (marker + decrement, one transaction)",
        match: { ids in "AI_BUDGET#\(ids.day)" },
        run: { context in
            let store = DynamoCeilingStore(table: context.plain)
            var held: [CeilingReservation] = []
            for _ in 0..<2 {
                guard
                    case .reserved(let reservation) = try await store.reserve(
                        day: context.ids.day,
                        limit: 10,
                        worstCaseMicros: 500,
                        budgetMicros: 1_000_000
                    )
                else { throw HarnessError("setup: ceiling reservation refused") }
                held.append(reservation)
            }
            try await context.arm()
            try await DynamoCeilingStore(table: context.writer).release(held[1])
            let row = try await context.row(Keys.ceiling(context.ids.day))
            let calls = Int(row?["calls"]?.intValue ?? -1)
            let cost = Int(row?["cost"]?.intValue ?? -1)
            return Observation(
                correct: calls == 1 && cost == 500,
                text: "2 reserved (500 µ$ each), 1 released: calls \(calls), cost \(cost)"
            )
        },
        transactional: true
    )

    static let ceilingSettle = WriteCheck(
        "ceiling_settle",
        "money settle (marker + give-back of worst case − cost)",
        match: { ids in "AI_BUDGET#\(ids.day)" },
        run: { context in
            guard
                case .reserved(let reservation) = try await DynamoCeilingStore(table: context.plain).reserve(
                    day: context.ids.day,
                    limit: 10,
                    worstCaseMicros: 900,
                    budgetMicros: 1_000_000
                )
            else { throw HarnessError("setup: ceiling reservation refused") }
            try await context.arm()
            let settled = try await CeilingGuard(
                store: DynamoCeilingStore(table: context.writer),
                dailyLimit: 10,
                dailyCostLimitMicros: 1_000_000,
                calendar: .utc
            ).settle(reservation, costMicros: 600)
            let cost = try await context.count(Keys.ceiling(context.ids.day), "cost")
            return Observation(
                correct: cost == 600 && settled == .settled(givenBack: 300),
                text: "900 µ$ reserved, settled to 600: cost \(cost)"
            )
        },
        transactional: true
    )

    static let warningFlag = WriteCheck(
        "warning_flag",
        "warning flag",
        match: { ids in "AI_BUDGET#\(ids.day)" },
        run: { context in
            guard try await DynamoCeilingStore(table: context.plain).reserve(day: context.ids.day, limit: 10) != nil
            else { throw HarnessError("setup: ceiling reservation refused") }
            try await context.arm()
            let claimed = try await DynamoCeilingStore(table: context.writer).claimWarning(day: context.ids.day)
            let later = try await DynamoCeilingStore(table: context.plain).claimWarning(day: context.ids.day)
            if !claimed {
                return Observation(
                    correct: false,
                    text: "the only claimant lost its own claim: the warning never fires"
                )
            }
            return Observation(
                correct: !later,
                text: "claimed once; a later claim \(later ? "also won" : "is refused")"
            )
        }
    )

    static let decodeBudget = perDeviceDailyBudget(
        "decode_budget",
        "decode budget",
        sortKeyPrefix: "PLAY_DECODE#",
        attribute: "decodes",
        unit: "decode",
        limit: 30
    ) { table, limit, context in
        try await DynamoDeviceDailyBudget.playDecodes(table: table, perDevice: limit, calendar: .utc)
            .spendOne(deviceID: context.ids.id, now: context.now) == .spent
    }

    static let deviceCheckBudget = perDeviceDailyBudget(
        "devicecheck_budget",
        "DeviceCheck budget",
        sortKeyPrefix: "DEVICECHECK#",
        attribute: "queries",
        unit: "query",
        limit: 5
    ) { table, limit, context in
        try await DynamoDeviceDailyBudget.deviceCheckQueries(table: table, perDevice: limit, calendar: .utc)
            .spendOne(deviceID: context.ids.id, now: context.now) == .spent
    }

    /// A device ID's daily budget (`DayCounter` on `DEVICE#{id}` / `{sortKeyPrefix}{day}`) of `limit` a day:
    /// one spend, through `writer`, must be answered spent and counted once.
    static func perDeviceDailyBudget(
        _ slug: String,
        _ write: String,
        sortKeyPrefix: String,
        attribute: String,
        unit: String,
        limit: Int,
        spend: @escaping @Sendable (GateTable, Int, RunContext) async throws -> Bool
    ) -> WriteCheck {
        WriteCheck(
            slug,
            write,
            match: { _ in sortKeyPrefix },
            run: { context in
                try await context.arm()
                let spent = try await spend(context.writer, limit, context)
                let day = LocalCalendar.utc.day(at: context.now).iso
                let counted = try await context.count(Keys.device(context.ids.id, sortKeyPrefix + day), attribute)
                return Observation(
                    correct: spent && counted == 1,
                    text: "one \(unit) \(spent ? "spent" : "refused"), counted as \(counted) of \(limit)"
                )
            }
        )
    }

    static let playQuota = WriteCheck(
        "play_quota",
        "global Play quota counter",
        match: { ids in "PLAY_QUOTA#\(ids.day)" },
        run: { context in
            try await context.arm()
            let result = try await DynamoDecodeQuotaStore(table: context.writer)
                .incrementDecodeCount(day: context.ids.day, limit: 10_000)
            let decodes = try await context.count(Keys.playQuota(context.ids.day), "decodes")
            guard case .counted(let reported, _) = result else {
                return Observation(correct: false, text: "the first decode was refused (count \(decodes))")
            }
            return Observation(
                correct: decodes == 1 && reported == 1,
                text: "one decode counted as \(decodes) (reported \(reported))"
            )
        }
    )

    static let firstSeen = WriteCheck(
        "first_seen",
        "first-seen",
        match: { _ in Keys.sortKey("PROFILE") },
        run: { context in
            try await context.arm()
            let seen = try await DynamoChallengeStore(table: context.writer)
                .firstSeenDay(subject: .device(context.ids.id), today: context.ids.day)
            let stored = try await context.row(Keys.device(context.ids.id, "PROFILE"))?["first_seen"]?.stringValue
            return Observation(
                correct: seen == context.ids.day && stored == context.ids.day,
                text: "a new guest's first day read as \(seen == context.ids.day ? "today" : seen)"
            )
        },
        preFixControl: { context in
            // The pre-fix form: "first seen today" only if this call created the stamp.
            try await context.arm()
            do {
                try await context.writer.client.updateItem(
                    UpdateItem(
                        table: context.writer.table,
                        key: Keys.device(context.ids.id, "PROFILE"),
                        update: UpdateExpression(set: ["\(name: "first_seen") = \(value: .s(context.ids.day))"]),
                        condition: "attribute_not_exists(\(name: "first_seen"))"
                    ),
                    deadline: .after(.seconds(5))
                )
                return Observation(correct: true, text: "new guest")
            } catch let error as DynamoDBError where error.reason == .conditionalCheckFailed {
                return Observation(correct: false, text: "a new guest read as a returning one (later-day allowance)")
            }
        },
        tokenlessBreaks: false
    )
}
