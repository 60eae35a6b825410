import AppTestSupport
import AttestCore
import DynamoDB
import FoundationEssentials
import SimulatedDevice
import Synchronization
import TestSupport
import Testing

/// Counter races: two genuine calls of one key racing on the counter. A call whose own challenge was
/// just spent cannot be a replay, so a counter the row already passed does not refuse it (docs/gate.md,
/// "Counter races").
@Suite struct IOSCounterRaceTests {
    @Test func twoGenuineAssertionsArrivingOutOfOrderAreBothAccepted() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let body = Array(#"{"prompt":"p"}"#.utf8)
            let six = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            let seven = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            // Counter 2 lands before counter 1.
            #expect(try await client.execute("/v1/generate", headers: seven, body: body).status == 200)
            let late = try await client.execute("/v1/generate", headers: six, body: body)
            #expect(late.status == 200, "\(app.decisions.last?["reason"] ?? .null)")
            #expect(app.decisions.map { $0["outcome"]?.stringValue } == ["genuine", "genuine"])
            // The stored counter stays the high-water mark.
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == 2)
            // Its challenge is spent: the late call's proof is still single-use.
            #expect(try await client.execute("/v1/generate", headers: six, body: body).status == 403)
            #expect(app.decisions.last?["reason"] == .string("challenge.unspendable"))
        }
    }

    @Test func aResendAfterAParallelCallAdvancedTheCounterIsStillAccepted() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let body = Array(#"{"prompt":"p"}"#.utf8)
            let first = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            let second = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            // The first call's counter advance lands, its answer is lost, the second call advances further,
            // then the first call's resend arrives (its token is no longer the row's).
            let parallel = Mutex<Int?>(nil)
            app.transport.interleave(whenBodyContains: "counter_write_id") {
                let status = try await client.execute("/v1/generate", headers: second, body: body).status
                parallel.withLock { $0 = status }
            }
            let resent = try await client.execute("/v1/generate", headers: first, body: body)
            #expect(parallel.withLock { $0 } == 200)
            #expect(resent.status == 200, "\(app.decisions.last?["reason"] ?? .null)")
            #expect(app.transport.resent == 1)
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == 2)
            #expect(app.upstream.requests.count == 2)
        }
    }

    @Test func theControlAKeyReboundMeanwhileIsStillRefused() async throws {
        // The rule holds only while the row still holds the key that signed: a rebind after the assertion
        // was verified, before its counter write lands, refuses it.
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let body = Array(#"{"prompt":"p"}"#.utf8)
            let old = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            var reinstalled = phone
            try reinstalled.reinstall()
            let rebound = Mutex<String?>(nil)
            let device = reinstalled
            app.transport.interleave(whenBodyContains: "counter_write_id", resend: false) {
                let binding = try await client.registerKey(device).json?["binding"]?.stringValue
                rebound.withLock { $0 = binding }
            }
            let response = try await client.execute("/v1/generate", headers: old, body: body)
            #expect(rebound.withLock { $0 } == "rebound")
            #expect(response.status == 403)
            #expect(app.decisions.last?["reason"] == .string("appattest.counter_not_advanced"))
        }
    }
}

/// Key rollback (docs/gate.md, "Counter races"): a key's counter and the settings it was attested under
/// cannot be rolled back.
@Suite struct IOSKeyRollbackTests {
    static func setRow(_ app: GateTestApp, _ deviceID: String, _ update: UpdateExpression) async throws {
        _ = try await app.dynamo.updateItem(
            UpdateItem(
                table: app.table,
                key: ["PK": .s("DEVICE#\(deviceID)"), "SK": .s("ATTEST_KEY")],
                update: update
            ),
            deadline: .after(.seconds(10))
        )
    }

    @Test func reRegisteringTheSameKeyKeepsItsCounter() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            for _ in 0..<3 { #expect(try await client.metered(&phone).status == 200) }
            let again = try await client.registerKey(phone)
            #expect(again.json?["binding"] == .string("re_registered"))
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == 3)
            #expect(try await client.metered(&phone).status == 200)
            #expect(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY")?["counter"]?.intValue == 4)
        }
    }

    @Test func theKeyRowCarriesTheAppIDItWasAttestedFor() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            let phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["app_id"] == .s("\(GateTestApp.teamID).\(GateTestApp.bundleID)"))
            #expect(key["environment"] == .s("development"))
        }
    }

    @Test(arguments: [
        ("environment", AttributeValue.s("production"), "appattest.key_environment_mismatch"),
        ("app_id", .s("\(GateTestApp.teamID).com.example.other"), "appattest.key_app_id_mismatch"),
    ])
    func anAssertionIsCheckedAgainstTheStoredKeysSettings(
        _ attribute: String,
        _ value: AttributeValue,
        _ reason: String
    ) async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            #expect(try await client.metered(&phone).status == 200)
            // The key as another configuration attested it (a development key, another app).
            try await Self.setRow(app, phone.deviceID, UpdateExpression(set: ["\(name: attribute) = \(value: value)"]))
            let response = try await client.metered(&phone)
            #expect(response.status == 403)
            #expect(app.decisions.last?["reason"] == .string(reason))
        }
    }

    @Test func aRowWrittenBeforeAppIDsWereStoredIsPinnedByItsNextAssertion() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            try await Self.setRow(app, phone.deviceID, UpdateExpression(remove: ["\(name: "app_id")"]))
            #expect(try await client.metered(&phone).status == 200)
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["app_id"] == .s("\(GateTestApp.teamID).\(GateTestApp.bundleID)"))
        }
    }
}
