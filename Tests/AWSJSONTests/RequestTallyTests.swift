import Testing

@testable import AWSJSON

@Suite struct RequestTallyTests {
    /// The time with a request in flight: overlapping calls count once, gaps between them not at all.
    @Test func theWaitIsTheUnionOfTheCallsIntervals() {
        let tally = RequestTally()
        let zero = ContinuousClock.now
        tally.record(start: zero + .milliseconds(20), end: zero + .milliseconds(25), attempts: 1)
        tally.record(start: zero, end: zero + .milliseconds(10), attempts: 1)
        tally.record(start: zero + .milliseconds(5), end: zero + .milliseconds(15), attempts: 2)
        #expect(tally.waitedMicros == 20_000)
        #expect(tally.sequential == 2)
        #expect(tally.requests == 4)
        #expect(RequestTally().waitedMicros == 0)
    }
}
