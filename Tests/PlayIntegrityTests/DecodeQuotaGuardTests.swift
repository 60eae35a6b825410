import AttestCore
import FoundationEssentials
import TestSupport
import Testing

@testable import PlayIntegrity

@Suite struct DecodeQuotaGuardTests {
    @Test func softCapDecision() {
        let cap = DecodeSoftCap(softCap: 9000)
        #expect(cap.warningThreshold == 7200)
        #expect(cap.decide(.counted(count: 1, warned: false)) == .init(admit: true, claimWarning: false))
        #expect(cap.decide(.counted(count: 7199, warned: false)) == .init(admit: true, claimWarning: false))
        #expect(cap.decide(.counted(count: 7200, warned: false)) == .init(admit: true, claimWarning: true))
        #expect(cap.decide(.counted(count: 7201, warned: true)) == .init(admit: true, claimWarning: false))
        #expect(cap.decide(.counted(count: 9000, warned: true)) == .init(admit: true, claimWarning: false))
        #expect(cap.decide(.counted(count: 9001, warned: true)) == .init(admit: false, claimWarning: false))
        #expect(cap.decide(.limitReached) == .init(admit: false, claimWarning: false))
        #expect(DecodeSoftCap(softCap: 10).warningThreshold == 8)
        #expect(DecodeSoftCap(softCap: 3).warningThreshold == 3)
    }

    @Test func guardAdmitsUpToTheCapAndWarnsOnceADay() async {
        let store = InMemoryDecodeQuotaStore()
        let sink = CapturingLogSink()
        let guardian = SoftCapDecodeQuotaGuard(store: store, softCap: 10, logger: Logger(sink: sink))
        let now = Date(timeIntervalSince1970: 1_764_500_000)  // 2025-11-30 10:53 UTC = 02:53 PST
        var answers: [DecodeQuotaDecision] = []
        for _ in 0..<12 { answers.append(await guardian.admitDecode(now: now)) }
        #expect(answers == Array(repeating: .admitted, count: 10) + [.capReached, .capReached])
        let warnings = sink.objects.filter { $0["reason"]?.stringValue == "play.quota_warning" }
        #expect(warnings.count == 1)
        #expect(store.count("2025-11-30") == 10)
    }

    @Test func storeFailureIsReported() async {
        let guardian = SoftCapDecodeQuotaGuard(
            store: InMemoryDecodeQuotaStore(failing: true),
            softCap: 10,
            logger: Logger(sink: CapturingLogSink())
        )
        #expect(await guardian.admitDecode(now: Date(timeIntervalSince1970: 0)) == .storeFailed)
    }

    @Test func quotaDayIsThePacificTimeDay() {
        let guardian = SoftCapDecodeQuotaGuard(
            store: InMemoryDecodeQuotaStore(),
            softCap: 10,
            logger: Logger(sink: CapturingLogSink())
        )
        // 2026-01-15 07:59:59 UTC is 23:59:59 PST on the 14th; 08:00 UTC is midnight PST.
        #expect(guardian.quotaDay(at: Date(timeIntervalSince1970: 1_768_463_999)) == "2026-01-14")
        #expect(guardian.quotaDay(at: Date(timeIntervalSince1970: 1_768_464_000)) == "2026-01-15")
        // 2026-07-15 06:59:59 UTC is 23:59:59 PDT on the 14th; 07:00 UTC is midnight PDT.
        #expect(guardian.quotaDay(at: Date(timeIntervalSince1970: 1_784_098_799)) == "2026-07-14")
        #expect(guardian.quotaDay(at: Date(timeIntervalSince1970: 1_784_098_800)) == "2026-07-15")
    }
}
