import FoundationEssentials
import Testing

@testable import Gate

@Suite struct DeviceTierPolicyTests {
    @Test func aClearMarkIsTheFirstTierAndEveryOtherAnswerIsNot() {
        let cases: [(MarkSignal, DeviceTier)] = [
            (.clear, .first), (.set, .repeat), (.missingToken, .repeat), (.unavailable, .unknown), (.off, .first),
        ]
        for (mark, tier) in cases {
            let got = DeviceTierPolicy.atRegistration(
                previous: nil,
                heldKey: false,
                mark: mark,
                risk: .notAsked,
                riskMax: 5
            )
            #expect(got == tier, "\(mark)")
        }
    }

    @Test func aRiskMetricAboveTheMaximumFlagsEvenAKeptFirstTier() {
        let flagged = DeviceTierPolicy.atRegistration(
            previous: .first,
            heldKey: true,
            mark: .set,
            risk: .metric(12),
            riskMax: 5
        )
        #expect(flagged == .repeat)
        let atMax = DeviceTierPolicy.atRegistration(
            previous: nil,
            heldKey: false,
            mark: .clear,
            risk: .metric(5),
            riskMax: 5
        )
        #expect(atMax == .first)
    }

    @Test func aReinstallKeepingItsDeviceIDKeepsItsSettledTierButNotAnUnknownOne() {
        // Its own bit 0 reads as a mark in force: the kept tier wins.
        #expect(
            DeviceTierPolicy.atRegistration(previous: .first, heldKey: true, mark: .set, risk: .notAsked, riskMax: 5)
                == .first
        )
        #expect(
            DeviceTierPolicy.atRegistration(previous: .repeat, heldKey: true, mark: .clear, risk: .notAsked, riskMax: 5)
                == .repeat
        )
        // Unknown is re-read: a mark another device ID set is a repeat.
        #expect(
            DeviceTierPolicy.atRegistration(previous: .unknown, heldKey: true, mark: .set, risk: .notAsked, riskMax: 5)
                == .repeat
        )
        // A previous tier without a held key (a profile from a metered call) is not kept.
        #expect(
            DeviceTierPolicy.atRegistration(previous: .first, heldKey: false, mark: .set, risk: .notAsked, riskMax: 5)
                == .repeat
        )
    }

    /// A receipt our check refused is request content, never better than no receipt: `repeat`
    /// even on a clear mark (it was `unknown`, so a route with `onUnknownDevice: first` served it).
    @Test func anUnverifiedReceiptIsRepeatAndAnUnavailableOneUnknown() {
        #expect(RiskSignal.unverified.tier(max: 5) == .repeat)
        #expect(RiskSignal.unavailable.tier(max: 5) == .unknown)
        #expect(
            DeviceTierPolicy.atRegistration(previous: nil, heldKey: false, mark: .clear, risk: .unverified, riskMax: 5)
                == .repeat
        )
        #expect(
            DeviceTierPolicy.atRegistration(previous: nil, heldKey: false, mark: .clear, risk: .unavailable, riskMax: 5)
                == .unknown
        )
        #expect(
            DeviceTierPolicy.atRegistration(previous: nil, heldKey: false, mark: .set, risk: .unavailable, riskMax: 5)
                == .repeat
        )
    }

    @Test func aCallWithoutAStoredTierIsFirstOnlyWhenTieringIsOff() {
        #expect(DeviceTierPolicy.forCall(stored: nil, tiering: false, attestedKey: false) == .first)
        #expect(DeviceTierPolicy.forCall(stored: nil, tiering: true, attestedKey: false) == .repeat)
        // A key registered before marks (no stored tier) keeps the first tier it had.
        #expect(DeviceTierPolicy.forCall(stored: nil, tiering: true, attestedKey: true) == .first)
        #expect(DeviceTierPolicy.forCall(stored: .repeat, tiering: false, attestedKey: true) == .repeat)
        #expect(UnknownDevicePolicy.repeat.meteredAs == .repeat)
        #expect(UnknownDevicePolicy.first.meteredAs == .first)
        #expect(RecallSignal.set.tier == .repeat && RecallSignal.unavailable.tier == .unknown)
    }
}

/// A `first` expires with the mark that made it (docs/gate.md, "Device tiers").
@Suite struct FirstExpiryTests {
    static let now = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01 12:00 UTC

    @Test func aMarkedFirstExpiresAfterTheMarkMonths() {
        func expired(_ profile: DeviceProfile, months: Int = 3) -> Bool {
            DeviceTierPolicy.firstExpired(profile, now: Self.now, markMonths: months)
        }
        let marked = { (month: String) in
            DeviceProfile(firstSeen: "2026-01-01", tier: .first, tierReason: "mark.renewed", tierMarked: month)
        }
        #expect(!expired(marked("2026-09")))
        #expect(expired(marked("2026-08")))
        #expect(!expired(marked("2026-08"), months: 4))
        // Unreadable: expired (no extra first).
        #expect(expired(marked("2026-8")))
        // A mark's first from before `tier_marked`: its first-seen month.
        #expect(expired(DeviceProfile(firstSeen: "2026-08-31", tier: .first, tierReason: "mark.clear")))
        #expect(!expired(DeviceProfile(firstSeen: "2026-09-01", tier: .first, tierReason: "mark.clear")))
        // No mark made it (a legacy key, Android's recall), or not a first: never expires.
        #expect(!expired(DeviceProfile(firstSeen: "2025-01-01", tier: .first, tierReason: "tier.legacy_key")))
        #expect(!expired(DeviceProfile(firstSeen: "2025-01-01", tier: .first, tierReason: "recall.clear")))
        #expect(
            !expired(
                DeviceProfile(firstSeen: "2025-01-01", tier: .repeat, tierReason: "mark.set", tierMarked: "2025-01")
            )
        )
    }

    @Test func aFirstAMarkMadeRenewsAnOlderOne() {
        #expect(DeviceTier.mayMove(from: .first, marked: "2026-08", to: .first, marked: "2026-12"))
        #expect(DeviceTier.mayMove(from: .first, marked: nil, to: .first, marked: "2026-12"))
        #expect(!DeviceTier.mayMove(from: .first, marked: "2026-12", to: .first, marked: "2026-12"))
        #expect(!DeviceTier.mayMove(from: .first, marked: nil, to: .first, marked: nil))
        #expect(!DeviceTier.mayMove(from: .repeat, marked: "2026-01", to: .first, marked: "2026-12"))
    }
}

@Suite struct DeviceTierMoveTests {
    @Test func aRepeatNeverMovesAndAFirstOnlyToRepeat() async throws {
        #expect(DeviceTier.mayMove(from: nil, to: .first))
        #expect(DeviceTier.mayMove(from: .unknown, to: .first))
        #expect(DeviceTier.mayMove(from: .first, to: .repeat))
        #expect(!DeviceTier.mayMove(from: .first, to: .unknown))
        #expect(!DeviceTier.mayMove(from: .repeat, to: .first))
        let store = InMemoryDeviceTierStore()
        let id = "5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10"
        #expect(
            try await store.recordTier(deviceID: id, tier: .first, reason: "mark.clear", today: "2026-12-01") == .first
        )
        #expect(try await store.recordTier(deviceID: id, tier: .unknown, reason: "x", today: "2026-12-01") == .first)
        #expect(
            try await store.recordTier(deviceID: id, tier: .repeat, reason: "risk.flagged", today: "2026-12-01")
                == .repeat
        )
        #expect(
            try await store.recordTier(deviceID: id, tier: .first, reason: "mark.clear", today: "2026-12-01") == .repeat
        )
        #expect(try await store.storedTier(deviceID: id) == .repeat)
    }
}
