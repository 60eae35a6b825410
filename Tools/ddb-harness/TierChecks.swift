import AttestCore
import DynamoDB
import FoundationEssentials
import Gate

extension WriteCheck {
    /// The device tier write (docs/gate.md, "Device tiers"): a registration whose mark was clear records
    /// `first` on a device ID seen the day before. Its answer decides what the registration logs and whether
    /// the device got its free tier, and the mark at Apple is already set, so an answer read wrongly costs the
    /// device its free tier for good.
    static let tierRecord = WriteCheck(
        "tier_record",
        "device tier (first after a clear mark)",
        match: { _ in Keys.sortKey("PROFILE") },
        run: { context in
            let profile = Keys.device(context.ids.id, "PROFILE")
            _ = try await DynamoChallengeStore(table: context.plain)
                .firstSeenDay(subject: .device(context.ids.id), today: "2030-12-31")
            try await context.arm()
            let answered = try await DynamoDeviceTierStore(table: context.writer)
                .recordTier(deviceID: context.ids.id, tier: .first, reason: "mark.clear", today: context.ids.day)
            let row = try await context.row(profile)
            let stored = row?["tier"]?.stringValue ?? "none"
            let reason = row?["tier_reason"]?.stringValue ?? "none"
            let firstSeen = row?["first_seen"]?.stringValue ?? "none"
            return Observation(
                correct: answered == .first && stored == "first" && reason == "mark.clear" && firstSeen == "2030-12-31",
                text: "answered \(answered.rawValue), stored \(stored) (\(reason)), first seen \(firstSeen)"
            )
        },
        preFixControl: { context in
            // The pre-fix form: the same move condition without the token or the old row, and a refusal read
            // as "another registration settled this device ID first": `repeat`.
            _ = try await DynamoChallengeStore(table: context.plain)
                .firstSeenDay(subject: .device(context.ids.id), today: "2030-12-31")
            try await context.arm()
            do {
                try await context.writer.client.updateItem(
                    UpdateItem(
                        table: context.writer.table,
                        key: Keys.device(context.ids.id, "PROFILE"),
                        update: UpdateExpression(set: [
                            "\(name: "tier") = \(value: .s("first"))",
                            "\(name: "tier_reason") = \(value: .s("mark.clear"))",
                        ]),
                        condition:
                            "attribute_not_exists(\(name: "tier")) OR \(name: "tier") = \(value: .s("unknown"))",
                        returnOldItemOnConditionFailure: false
                    ),
                    deadline: .after(.seconds(5))
                )
                return Observation(correct: true, text: "answered first")
            } catch let error as DynamoDBError where error.reason == .conditionalCheckFailed {
                return Observation(
                    correct: false,
                    text: "its own first read as repeat: the device's free tier lost (its mark already set)"
                )
            }
        },
        tokenlessBreaks: false
    )
}

extension WriteCheck {
    /// A `first` whose mark expired, renewed by a newer mark (`MarkRenewal`: bit 0 already written
    /// again at Apple). The write replaces a stored `first` only when the stored `tier_marked` is older; a
    /// renewal read wrongly leaves the `first` expired although the device's mark is claimed.
    static let tierRenew = WriteCheck(
        "tier_renew",
        "device tier (first renewed by a newer mark)",
        match: { _ in Keys.sortKey("PROFILE") },
        run: { context in
            let profile = Keys.device(context.ids.id, "PROFILE")
            _ = try await DynamoDeviceTierStore(table: context.plain)
                .recordTier(
                    deviceID: context.ids.id,
                    tier: .first,
                    reason: "mark.clear",
                    today: "2030-09-01",
                    marked: "2030-09"
                )
            try await context.arm()
            let answered = try await DynamoDeviceTierStore(table: context.writer)
                .recordTier(
                    deviceID: context.ids.id,
                    tier: .first,
                    reason: "mark.renewed",
                    today: context.ids.day,
                    marked: "2030-12"
                )
            let row = try await context.row(profile)
            let marked = row?["tier_marked"]?.stringValue ?? "none"
            let reason = row?["tier_reason"]?.stringValue ?? "none"
            let firstSeen = row?["first_seen"]?.stringValue ?? "none"
            return Observation(
                correct: answered == .first && marked == "2030-12" && reason == "mark.renewed"
                    && firstSeen == "2030-09-01",
                text: "answered \(answered.rawValue), stored \(reason) marked \(marked), first seen \(firstSeen)"
            )
        },
        preFixControl: { context in
            // The pre-issue-35 move condition (a `first` moves only to `repeat`): the renewal is refused and the
            // `first` stays expired although its mark was claimed again at Apple.
            _ = try await DynamoDeviceTierStore(table: context.plain)
                .recordTier(
                    deviceID: context.ids.id,
                    tier: .first,
                    reason: "mark.clear",
                    today: "2030-09-01",
                    marked: "2030-09"
                )
            try await context.arm()
            do {
                try await context.writer.client.updateItem(
                    UpdateItem(
                        table: context.writer.table,
                        key: Keys.device(context.ids.id, "PROFILE"),
                        update: UpdateExpression(set: [
                            "\(name: "tier") = \(value: .s("first"))",
                            "\(name: "tier_reason") = \(value: .s("mark.renewed"))",
                            "\(name: "tier_marked") = \(value: .s("2030-12"))",
                        ]),
                        condition:
                            "attribute_not_exists(\(name: "tier")) OR \(name: "tier") = \(value: .s("unknown"))",
                        returnOldItemOnConditionFailure: false
                    ),
                    deadline: .after(.seconds(5))
                )
                return Observation(correct: true, text: "renewed")
            } catch let error as DynamoDBError where error.reason == .conditionalCheckFailed {
                return Observation(correct: false, text: "renewal refused: the first stays expired, its mark claimed")
            }
        },
        tokenlessBreaks: false
    )
}

extension Runner {
    /// A registration's `first` racing a risk flag's `repeat` on one device ID, one client each,
    /// each send also resent when `resend`. In every round the row ends `repeat` and the flag is answered
    /// `repeat`, whichever landed first (`DeviceTier.mayMove`); the registration is answered `first` only
    /// when it landed before the flag.
    func tierRace(rounds: Int, resend: Bool) async -> Line {
        let write = "race: a registration's first against a risk flag's repeat"
        let method = "2 parallel clients × \(rounds) rounds" + (resend ? ", each send resent" : "")
        do {
            var settled = 0
            var flagAnswered = 0
            var firstLanded = 0
            for _ in 0..<rounds {
                let ids = RunIDs.next()
                let registration = DynamoDeviceTierStore(table: try racer(resend: resend))
                let flag = DynamoDeviceTierStore(table: try racer(resend: resend))
                async let first = registration.recordTier(
                    deviceID: ids.id,
                    tier: .first,
                    reason: "mark.clear",
                    today: ids.day
                )
                async let flagged = flag.recordTier(
                    deviceID: ids.id,
                    tier: .repeat,
                    reason: "risk.flagged",
                    today: ids.day
                )
                let (registered, answered) = try await (first, flagged)
                let row = try await harness.row(Keys.device(ids.id, "PROFILE"))
                if row?["tier"]?.stringValue == "repeat" && row?["tier_reason"]?.stringValue == "risk.flagged" {
                    settled += 1
                }
                if answered == .repeat { flagAnswered += 1 }
                if registered == .first { firstLanded += 1 }
            }
            return Line(
                passed: settled == rounds && flagAnswered == rounds,
                write: write,
                method: method,
                outcome:
                    "\(settled) of \(rounds) rows repeat (risk.flagged), the flag answered repeat \(flagAnswered)×, "
                    + "the registration answered first \(firstLanded)× (it landed first)",
                control: "- (a race has no resend to control for)"
            )
        } catch {
            return Line(passed: false, write: write, method: method, outcome: "harness error: \(error)", control: "-")
        }
    }
}
