import AttestCore
import CivilTime
import FoundationEssentials
import Synchronization
import Testing

@testable import Gate

@Suite struct AllowanceAndCeilingTests {
    // 2026-11-30T12:00:00Z
    let noon = Date(timeIntervalSince1970: 1_796_040_000)
    let device = Subject.device("5f1c3a52-8f4e-4c39-9a55-0d3b1b7e2f10")

    @Test func firstDayGetsTheFirstDayAllowanceThenLaterDaysTheSmallerOne() async throws {
        let meter = AllowanceMeter(store: InMemoryAllowanceStore(), calendar: .utc)
        let policy = AllowancePolicy(firstDay: 3, laterDays: 2)
        var granted = 0
        while case .reserved = try await meter.reserve(
            subject: device,
            feature: "generation",
            policy: policy,
            firstSeen: "2026-11-30",
            now: noon
        ) {
            granted += 1
        }
        #expect(granted == 3)
        let tomorrow = noon.addingTimeInterval(86_400)
        granted = 0
        while case .reserved = try await meter.reserve(
            subject: device,
            feature: "generation",
            policy: policy,
            firstSeen: "2026-11-30",
            now: tomorrow
        ) {
            granted += 1
        }
        #expect(granted == 2)
    }

    @Test func exhaustionSaysWhenTheLocalDayTurns() async throws {
        let tokyo = try LocalCalendar(zone: "Asia/Tokyo")
        let meter = AllowanceMeter(store: InMemoryAllowanceStore(), calendar: tokyo)
        let policy = AllowancePolicy(firstDay: 1, laterDays: 1)
        _ = try await meter.reserve(
            subject: device,
            feature: "tutor",
            policy: policy,
            firstSeen: "2026-11-30",
            now: noon
        )
        let outcome = try await meter.reserve(
            subject: device,
            feature: "tutor",
            policy: policy,
            firstSeen: "2026-11-30",
            now: noon
        )
        // 12:00Z is 21:00 JST, three hours before Tokyo's midnight.
        #expect(outcome == .exhausted(retryAfter: 3 * 3600))
    }

    @Test func remainingCountsDownPerFeatureAndSubject() async throws {
        let meter = AllowanceMeter(store: InMemoryAllowanceStore(), calendar: .utc)
        let policy = AllowancePolicy.seedDefault
        guard
            case .reserved(let first) = try await meter.reserve(
                subject: device,
                feature: "generation",
                policy: policy,
                firstSeen: "2026-11-30",
                now: noon
            ),
            case .reserved(let other) = try await meter.reserve(
                subject: .user("u1"),
                feature: "generation",
                policy: policy,
                firstSeen: "2026-11-30",
                now: noon
            )
        else {
            Issue.record("expected reservations")
            return
        }
        #expect(first.remaining == 13 && other.remaining == 13)
    }

    @Test func paidCallsAndAZeroLimitAreNotMetered() async throws {
        let store = InMemoryCeilingStore()
        #expect(
            try await CeilingGuard(store: store, dailyLimit: 5, calendar: .utc).reserve(paid: true, now: noon)
                == .notMetered
        )
        #expect(
            try await CeilingGuard(store: store, dailyLimit: 0, calendar: .utc).reserve(paid: false, now: noon)
                == .notMetered
        )
        #expect(store.used("2026-11-30") == 0)
    }

    @Test func ceilingStopsAtTheLimitAndWarnsOnceAtEightyPercent() async throws {
        let store = InMemoryCeilingStore()
        let guardian = CeilingGuard(store: store, dailyLimit: 10, calendar: .utc)
        var warnings = 0
        var admitted = 0
        for _ in 0..<15 {
            switch try await guardian.reserve(paid: false, now: noon) {
            case .reserved(let reservation, let claimed, _):
                admitted += 1
                if claimed {
                    warnings += 1
                    #expect(reservation.used == 8)
                }
            case .exhausted(let retryAfter, let ceiling):
                #expect(retryAfter == 12 * 3600 && ceiling == "calls")
            case .notMetered:
                Issue.record("a free call must be metered")
            }
        }
        #expect(admitted == 10 && warnings == 1)
        // Units released below the threshold and taken again do not warn a second time.
        try await guardian.release(CeilingReservation(day: "2026-11-30", used: 10, warned: true, callID: "c10"))
        try await guardian.release(CeilingReservation(day: "2026-11-30", used: 9, warned: true, callID: "c9"))
        // Exactly the two released units are taken again (a release that did nothing fails here), unwarned.
        for used in [9, 10] {
            guard
                case .reserved(let reservation, let claimed, let costClaimed) = try await guardian.reserve(
                    paid: false,
                    now: noon
                )
            else {
                Issue.record("a released unit must be taken again")
                continue
            }
            #expect(reservation.used == used && reservation.warned && !claimed && !costClaimed)
        }
        #expect(
            try await guardian.reserve(paid: false, now: noon) == .exhausted(retryAfter: 12 * 3600, ceiling: "calls")
        )
    }

    @Test func aStoreFailurePropagatesSoTheCallerFailsClosed() async {
        let store = InMemoryCeilingStore()
        store.failing.store(true, ordering: .relaxed)
        await #expect(throws: StoreError.self) {
            try await CeilingGuard(store: store, dailyLimit: 10, calendar: .utc).reserve(paid: false, now: noon)
        }
    }

    @Test func theMoneyCeilingAdmitsOnlyWhileTheNextWorstCaseFitsAndSettlesOnce() async throws {
        let store = InMemoryCeilingStore()
        let guardian = CeilingGuard(store: store, dailyLimit: 0, dailyCostLimitMicros: 1_000, calendar: .utc)
        var held: [CeilingReservation] = []
        for _ in 0..<5 {
            switch try await guardian.reserve(paid: false, worstCaseMicros: 300, now: noon) {
            case .reserved(let reservation, _, _): held.append(reservation)
            case .exhausted(_, let ceiling): #expect(ceiling == "cost")
            case .notMetered: Issue.record("a free call must be metered")
            }
        }
        #expect(held.count == 3 && store.cost("2026-11-30") == 900)
        // Settled to 100: 200 comes back, once, even when the settle is repeated.
        #expect(try await guardian.settle(held[0], costMicros: 100) == .settled(givenBack: 200))
        _ = try await guardian.settle(held[0], costMicros: 100)
        #expect(store.cost("2026-11-30") == 700)
        // Missing usage keeps the worst case.
        #expect(try await guardian.settle(held[1], costMicros: nil) == .kept)
        #expect(store.cost("2026-11-30") == 700)
        // A settle above the reservation is recorded in full.
        #expect(try await guardian.settle(held[2], costMicros: 450) == .exceeded(by: 150))
        #expect(store.cost("2026-11-30") == 850)
        // Paid calls are not metered at all.
        #expect(try await guardian.reserve(paid: true, worstCaseMicros: 300, now: noon) == .notMetered)
    }
}
