import Testing

@testable import AttestGateClient

@Suite struct ChallengePoolTests {
    let a = Challenge(value: "A", expiresAt: 1_000)
    let b = Challenge(value: "B", expiresAt: 2_000)

    @Test func eachChallengeIsTakenOnceAndTheFirstToExpireFirst() async {
        let pool = ChallengePool()
        await pool.offer(b)
        await pool.offer(a)
        await pool.offer(a)  // the same challenge twice is kept once
        #expect(await pool.take(now: 0) == a)
        #expect(await pool.take(now: 0) == b)
        #expect(await pool.take(now: 0) == nil)
    }

    @Test func aChallengeWithinTheMarginOfItsExpiryIsDropped() async {
        let pool = ChallengePool(margin: 15)
        await pool.offer(a)
        #expect(await pool.take(now: 985) == nil)
        await pool.offer(a)
        #expect(await pool.take(now: 984) == a)
    }

    @Test func atMostCapacityAreKeptAndTheSoonestToExpireGo() async {
        let pool = ChallengePool(capacity: 2)
        for expiry in [300, 100, 200] { await pool.offer(Challenge(value: "\(expiry)", expiresAt: Int64(expiry))) }
        #expect(await pool.count == 2)
        #expect(await pool.take(now: 0)?.value == "200")
    }
}
