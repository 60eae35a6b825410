import AppTestSupport
import AttestCore
import DynamoDB
import FoundationEssentials
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// App Attest: races (moto serialises each request behind one lock, as DynamoDB does per item, so only our
/// conditions decide), resends after lost answers, and challenge binding, through the real router.
@Suite struct IOSRaceAndResendTests {
    @Test func twentyParallelSpendsOfOneChallengeSucceedOnce() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let challenge = try await client.challenge(deviceID: phone.deviceID)
            // Twenty different, individually valid calls (own body, own counter), all on one challenge.
            var requests: [([String: String], [UInt8])] = []
            for index in 0..<20 {
                let body = Array(#"{"prompt":"\#(index)"}"#.utf8)
                requests.append(
                    (try client.proofHeaders(&phone, path: "/v1/generate", body: body, challenge: challenge), body)
                )
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for (headers, body) in requests {
                    group.addTask { try await client.execute("/v1/generate", headers: headers, body: body).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 403 }.count == 19)
            let reasons = app.decisions.compactMap { $0["reason"]?.stringValue }
            #expect(reasons.count == 19 && reasons.allSatisfy { $0 == "challenge.unspendable" })
        }
    }

    @Test func fiftyParallelCopiesOfOneAssertionAreAcceptedOnce() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let challenge = try await client.challenge(deviceID: phone.deviceID)
            let body = Array(#"{"prompt":"copied"}"#.utf8)
            let headers = try client.proofHeaders(&phone, path: "/v1/generate", body: body, challenge: challenge)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.execute("/v1/generate", headers: headers, body: body).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 403 }.count == 49)
            #expect(app.decisions.filter { $0["decision"] == .string("pass") }.count == 1)
            // One upstream call was billed, and the stored counter is the assertion's.
            #expect(app.upstream.requests.count == 1)
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == Int64(phone.key.counter))
        }
    }

    @Test func resentWritesSucceedOnceAndNeverRefuseThemselves() async throws {
        // Every UpdateItem and PutItem is sent twice: the first send lands, its answer is lost.
        let app = try await GateTestApp(resending: ["UpdateItem", "PutItem"])
        try await app.test { client in
            var phone = try client.iosDevice()
            // Challenge spend + key-owner claim + key bind, each resent: bound (not re_registered).
            let registered = try await client.registerKey(phone)
            #expect(registered.status == 200)
            #expect(registered.json?["binding"] == .string("bound"))
            for call in 1...3 {
                // Challenge spend and counter advance, each resent: accepted, counted once.
                let response = try await client.metered(&phone)
                #expect(response.status == 200, "call \(call): \(app.decisions.last?["reason"] ?? .null)")
                #expect(response.header(WireHeader.quotaRemaining.key) == String(100 - call))
            }
            #expect(app.decisions.map { $0["outcome"]?.stringValue } == ["genuine", "genuine", "genuine"])
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == 3)
            #expect(app.transport.resent >= 3 * 4 + 4)

            // A reinstall under resends: rebound, once.
            try phone.reinstall()
            #expect(try await client.registerKey(phone).json?["binding"] == .string("rebound"))
            #expect(try await client.metered(&phone).status == 200)
        }
    }

    @Test func challengeBindingWorksEndToEnd() async throws {
        let app = try await GateTestApp(routes: GateTestApp.route(mode: "enforce", binding: "challenge"))
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            for call in 1...3 {
                let body = Array(#"{"prompt":"\#(call)"}"#.utf8)
                let response = try await client.metered(&phone, body: body, binding: "challenge")
                #expect(response.status == 200)
                #expect(response.header(WireHeader.nextChallenge.key) != nil)
            }
            // Challenge binding's trade-off: only the challenge is signed, so the body is not covered...
            let challenge = try #require(phone.nextChallenge)
            let headers = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: Array("signed".utf8),
                challenge: challenge,
                binding: "challenge"
            )
            #expect(try await client.execute("/v1/generate", headers: headers, body: Array("other".utf8)).status == 200)
            // ...but the challenge still is: a request-bound assertion does not verify here.
            phone.nextChallenge = try await client.challenge(deviceID: phone.deviceID)
            let wrongMode = try await client.metered(&phone, binding: "request")
            #expect(wrongMode.status == 403)
            #expect(app.decisions.last?["reason"] == .string("appattest.assertion_bad_signature"))
        }
    }
}
