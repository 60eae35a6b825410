import AppTestSupport
import AttestCore
import TestSupport
import Testing
import WireContract

/// App Attest through the real router against moto: a genuine simulated iPhone end to end.
@Suite struct IOSFlowTests {
    @Test func aGenuineDeviceRegistersMakesThreeCallsAndReinstalls() async throws {
        let app = try await GateTestApp(routes: GateTestApp.route(mode: "enforce"))
        try await app.test { client in
            var phone = try client.iosDevice()
            let registered = try await client.registerKey(phone)
            #expect(registered.status == 200)
            #expect(registered.json?["binding"] == .string("bound"))

            var seen = Set<String>()
            for call in 1...3 {
                let usedChallenge = phone.nextChallenge
                let response = try await client.metered(&phone)
                #expect(response.status == 200, "call \(call): \(response.error ?? "")")
                #expect(response.json?["upstream"] == .string("fake"))
                #expect(response.header(WireHeader.quotaRemaining.key) == String(100 - call))
                let next = try #require(phone.nextChallenge, "call \(call) carries the next challenge")
                #expect(Bytes.fromBase64(next)?.count == 32)
                #expect(Int64(response.header(WireHeader.nextChallengeExpires.key) ?? "") ?? 0 > 0)
                #expect(seen.insert(next).inserted)
                if call > 1 { #expect(usedChallenge != nil) }
            }
            #expect(app.decisions.map { $0["outcome"]?.stringValue } == ["genuine", "genuine", "genuine"])
            // A genuine iOS call's store cost (docs/gate.md), as the decision line reports it through the router.
            for decision in app.decisions {
                #expect((decision["ddbRequests"]?.intValue ?? 99) <= 6)
                #expect((decision["ddbSequential"]?.intValue ?? 99) <= 4)
            }

            // Reinstall: the device ID survives in the Keychain, the key does not.
            let oldDevice = phone
            try phone.reinstall()
            let rebound = try await client.registerKey(phone)
            #expect(rebound.json?["binding"] == .string("rebound"))
            #expect(
                app.logs.objects.contains {
                    $0["message"] == .string("app attest key rebound") && $0["level"] == .string("WARN")
                }
            )
            let afterReinstall = try await client.metered(&phone)
            #expect(afterReinstall.status == 200)

            // The old key (still able to sign, counter ahead) is refused on the device ID now.
            var old = oldDevice
            old.nextChallenge = try await client.challenge(deviceID: old.deviceID)
            let refused = try await client.metered(&old)
            #expect(refused.status == 403)
            #expect(refused.error == "attestation_required")
            #expect(app.decisions.last?["reason"] == .string("appattest.key_not_registered"))
        }
    }
}
