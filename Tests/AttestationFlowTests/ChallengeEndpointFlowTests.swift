import AppTestSupport
import AttestCore
import FoundationEssentials
import TestSupport
import Testing
import WireContract

/// Challenges through the router (docs/api.md section 2): single-use per device ID at key registration too,
/// and issuing is bounded per device ID without ever starving a device in the middle of its calls.
@Suite struct ChallengeEndpointFlowTests {
    @Test func registrationSpendsItsChallengeOnceAndOnlyForItsDevice() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            let phone = try client.iosDevice()
            let challenge = try await client.challenge(deviceID: phone.deviceID)
            #expect(try await client.registerKey(phone, challenge: challenge).json?["binding"] == .string("bound"))
            // The same challenge again (a resent registration body): refused, the key stays bound once.
            let again = try await client.registerKey(phone, challenge: challenge)
            #expect(again.status == 403)
            #expect(again.error == "attestation_rejected")
            // A challenge issued to another device ID.
            var other = try client.iosDevice()
            try other.reinstall()
            let foreign = try await client.challenge(deviceID: randomDeviceID())
            let refused = try await client.registerKey(other, challenge: foreign)
            #expect(refused.status == 403)
            let reasons = app.logs.objects.filter { $0["message"] == .string("key registration refused") }
                .map { $0["reason"]?.stringValue }
            #expect(reasons == ["challenge.unspendable", "challenge.unspendable"])
            #expect(try await app.row("DEVICE#\(other.deviceID)", "ATTEST_KEY") == nil)
        }
    }

    @Test func issuingIsBoundedPerDeviceButMeteredCallsStillGetTheirNextChallenge() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)  // challenge 1
            #expect(try await client.metered(&phone).status == 200)  // challenge 2 (then one handed out)
            var issued = 2
            var refusal: GateTestResponse?
            while issued < 250 {
                let response = try await client.requestChallenge(deviceID: phone.deviceID)
                if response.status != 200 {
                    refusal = response
                    break
                }
                issued += 1
            }
            #expect(issued == 200)
            let refused = try #require(refusal)
            #expect(refused.status == 429)
            #expect(refused.error == "too_many_challenges")
            #expect(Int(refused.header("retry-after") ?? "") ?? 0 > 0)
            // Another device ID is not affected.
            #expect(try await client.requestChallenge(deviceID: randomDeviceID()).status == 200)
            // The device's calls go on: each spends one challenge and is handed the next.
            for _ in 1...3 {
                let response = try await client.metered(&phone)
                #expect(response.status == 200)
                #expect(response.header(WireHeader.nextChallenge.key) != nil)
            }
        }
    }
}
