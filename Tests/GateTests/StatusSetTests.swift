import Testing

@testable import Gate

@Suite struct StatusSetTests {
    /// Every status of the range, in every word of the bitmap, against a plain list.
    @Test(arguments: [[], [429, 503, 529], [400], [463, 464], [527, 528], [591, 592, 599], Array(400...599)])
    func holdsExactlyItsStatuses(statuses: [Int]) {
        let set = StatusSet(statuses)
        for status in 300...700 {
            #expect(set.contains(status) == statuses.contains(status), "\(status)")
        }
        #expect(set.sorted() == statuses.sorted())
    }

    @Test func equalSetsAreEqualWhateverTheOrderOrRepeats() {
        #expect(StatusSet([503, 429, 503]) == [429, 503])
        #expect(StatusSet([429]) != [429, 503])
        #expect(ReleasePolicy.defaultStatuses.sorted() == [429, 503, 529])
    }
}
