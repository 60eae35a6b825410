import AttestCore
import FoundationEssentials
import Testing

@Suite struct DeadlineTests {
    @Test func matchesAWallClockDeadlineLessAMargin() {
        let now = Date(timeIntervalSince1970: 1_000)
        let deadline = Deadline.matching(Date(timeIntervalSince1970: 1_010), now: now, margin: .seconds(2))
        #expect(deadline.remaining > .milliseconds(7_500))
        #expect(deadline.remaining <= .seconds(8))
        #expect(Deadline.matching(Date(timeIntervalSince1970: 999), now: now).remaining < .zero)
        #expect(Deadline.after(.seconds(1)) < Deadline.after(.seconds(2)))
    }
}
