import AppTestSupport
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// App Attest, refused: every way a proof can fail to hold, through the real router in enforce mode.
/// Each refusal is the same `403 attestation_required`; the decision line says why (the reason slug is
/// checked so a test cannot pass for the wrong reason).
@Suite struct IOSRefusalTests {
    /// A registered device with one accepted call behind it (so its counter and challenges are live).
    static func registered(_ client: GateTestClient) async throws -> IOSDevice {
        var phone = try client.iosDevice()
        let registered = try await client.registerKey(phone)
        try #require(registered.status == 200)
        let first = try await client.metered(&phone)
        try #require(first.status == 200)
        return phone
    }

    static func expectRefused(
        _ response: GateTestResponse,
        _ app: GateTestApp,
        reason: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 403, sourceLocation: sourceLocation)
        #expect(response.error == "attestation_required", sourceLocation: sourceLocation)
        #expect(app.decisions.last?["decision"] == .string("block"), sourceLocation: sourceLocation)
        #expect(app.decisions.last?["reason"] == .string(reason), sourceLocation: sourceLocation)
        // The client is never told which check failed.
        #expect(!String(decoding: response.body, as: UTF8.self).contains("."), sourceLocation: sourceLocation)
    }

    @Test func aReusedChallengeIsRefused() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            let challenge = try client.challengeOf(phone)
            let ok = try await client.metered(&phone)
            #expect(ok.status == 200)
            // A second call (a new, valid assertion) on the challenge the first call spent.
            phone.nextChallenge = challenge
            Self.expectRefused(try await client.metered(&phone), app, reason: "challenge.unspendable")
        }
    }

    @Test func anExpiredChallengeIsRefusedWhileItsRowIsStillThere() async throws {
        // A fixed clock: only the test moves it (a loaded machine's real seconds must not expire it early).
        let clock = TestClock(fixed: Date())
        let app = try await GateTestApp(clock: clock)
        try await app.test { client in
            var phone = try await Self.registered(client)
            let challenge = try client.challengeOf(phone)
            clock.advance(by: 301)
            // TTL deletion has not happened: the row is there, its expiry is in the past.
            let row = try #require(try await app.challengeRow(deviceID: phone.deviceID, challenge: challenge))
            let expiresAt = try #require(row["expires_at"]?.intValue)
            #expect(expiresAt < Int64(clock.now().timeIntervalSince1970))
            #expect(row["spent_by"] == nil)
            Self.expectRefused(try await client.metered(&phone), app, reason: "challenge.unspendable")
            // Just inside its lifetime a challenge still works (the clock is what refused it above).
            phone.nextChallenge = try await client.challenge(deviceID: phone.deviceID)
            clock.advance(by: 299)
            #expect(try await client.metered(&phone).status == 200)
        }
    }

    @Test func aChallengeIssuedToAnotherDeviceIDIsRefused() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            phone.nextChallenge = try await client.challenge(deviceID: randomDeviceID())
            Self.expectRefused(try await client.metered(&phone), app, reason: "challenge.unspendable")
        }
    }

    @Test func aChallengeOf33BytesIsRefusedBeforeDynamoDB() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            let long = Bytes.base64(SecureRandom().bytes(33))
            phone.nextChallenge = long
            app.transport.resetCounts()
            Self.expectRefused(try await client.metered(&phone), app, reason: "challenge.malformed")
            // No spend and no key read; the only write is the next challenge's issue count (+ its put).
            #expect(!app.transport.operations.contains("BatchGetItem"))
            #expect(app.transport.operations.filter { $0 == "UpdateItem" }.count == 1)

            // Key registration with a 33-byte challenge: refused without a single DynamoDB request.
            let other = try client.iosDevice()
            app.transport.resetCounts()
            let refused = try await client.registerKey(other, challenge: long)
            #expect(refused.status == 403)
            #expect(refused.error == "attestation_rejected")
            #expect(app.transport.operations == [])
        }
    }

    @Test func aReplayedAssertionIsRefused() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            let challenge = try client.challengeOf(phone)
            let body = Array(#"{"prompt":"replay me"}"#.utf8)
            let headers = try client.proofHeaders(&phone, path: "/v1/generate", body: body, challenge: challenge)
            #expect(try await client.execute("/v1/generate", headers: headers, body: body).status == 200)
            // The identical request again (a captured proof replayed).
            let replayed = try await client.execute("/v1/generate", headers: headers, body: body)
            Self.expectRefused(replayed, app, reason: "challenge.unspendable")
        }
    }

    @Test func anAssertionWithTheSameCounterOnAFreshChallengeIsNoReplayButStaysSingleUse() async throws {
        // Counter races: the signature covers a challenge this call has just spent, so the counter is
        // not what proves freshness (docs/gate.md, "Counter races"). Only the key's holder can sign such an
        // assertion, and it can sign any counter it likes; a replay needs a spent challenge and is refused.
        let app = try await GateTestApp()
        try await app.test { client in
            let phone = try await Self.registered(client)
            let challenge = try client.challengeOf(phone)
            let body = Array(#"{"prompt":"again"}"#.utf8)
            let clientData = ClientData(challenge: challenge, method: "POST", path: "/v1/generate", body: body)
            // A fresh challenge and a correct signature, but the counter the server already accepted.
            let assertion = try phone.device.assertion(
                phone.key,
                counter: phone.key.counter,
                clientDataHash: clientData.appAttestClientDataHash
            )
            let headers = [
                WireHeader.deviceID.name: phone.deviceID, WireHeader.challenge.name: challenge,
                WireHeader.appAttestKeyID.name: Bytes.base64(phone.key.keyId),
                WireHeader.appAttestAssertion.name: Bytes.base64(assertion),
                WireHeader.clientData.name: clientData.header,
            ]
            #expect(try await client.execute("/v1/generate", headers: headers, body: body).status == 200)
            let replayed = try await client.execute("/v1/generate", headers: headers, body: body)
            Self.expectRefused(replayed, app, reason: "challenge.unspendable")
            let key = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(key["counter"]?.intValue == Int64(phone.key.counter))
        }
    }

    @Test func aChangedBodyIsRefusedUnderRequestBinding() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            let signedBody = Array(#"{"prompt":"one card"}"#.utf8)
            let otherBody = Array(#"{"prompt":"a thousand cards"}"#.utf8)
            var headers = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: signedBody,
                challenge: try client.challengeOf(phone)
            )
            let changed = try await client.execute("/v1/generate", headers: headers, body: otherBody)
            Self.expectRefused(changed, app, reason: "binding.body_mismatch")

            // Client data rewritten to match the new body: the signature no longer covers it.
            let challenge = try await client.challenge(deviceID: phone.deviceID)
            headers = try client.proofHeaders(&phone, path: "/v1/generate", body: signedBody, challenge: challenge)
            let rewritten = ClientData(
                challenge: challenge,
                method: "POST",
                path: "/v1/generate",
                body: otherBody
            )
            headers[WireHeader.clientData.name] = rewritten.header
            let forged = try await client.execute("/v1/generate", headers: headers, body: otherBody)
            Self.expectRefused(forged, app, reason: "appattest.assertion_bad_signature")
        }
    }

    @Test func aChangedPathIsRefusedUnderRequestBinding() async throws {
        let routes = GateTestApp.routes([
            GateTestApp.routeEntry(mode: "enforce"),
            GateTestApp.routeEntry(
                path: "/v1/tutor/{deckId}/{cardId}",
                feature: "tutor",
                mode: "enforce",
                upstreamPath: "/tutor"
            ),
        ])
        let app = try await GateTestApp(routes: routes)
        try await app.test { client in
            var phone = try await Self.registered(client)
            let body = Array(#"{"question":"q"}"#.utf8)
            let headers = try client.proofHeaders(
                &phone,
                path: "/v1/tutor/deck-1/card-1",
                body: body,
                challenge: try client.challengeOf(phone)
            )
            // Another card of the same route, and another route.
            let otherCard = try await client.execute("/v1/tutor/deck-1/card-2", headers: headers, body: body)
            Self.expectRefused(otherCard, app, reason: "binding.path_mismatch")
            let again = try client.proofHeaders(
                &phone,
                path: "/v1/tutor/deck-1/card-1",
                body: body,
                challenge: try await client.challenge(deviceID: phone.deviceID)
            )
            let otherRoute = try await client.execute("/v1/generate", headers: again, body: body)
            Self.expectRefused(otherRoute, app, reason: "binding.path_mismatch")
            // The request it was made for passes.
            phone.nextChallenge = try await client.challenge(deviceID: phone.deviceID)
            #expect(try await client.metered(&phone, path: "/v1/tutor/deck-1/card-1", body: body).status == 200)
        }
    }

    /// Apple's nine steps decide (docs/appattest.md); a receipt our own check refuses (here one signed over
    /// its content instead of its signed attributes, as some early iOS 14 receipts are) is stored marked
    /// unverified, and the key works.
    @Test(arguments: [
        ("signature over the content", AttestationOptions.genuine.with { $0.receipt.signatureOverContent = true }),
        ("another app", AttestationOptions.genuine.with { $0.receipt.appId = "ABCDE12345.com.example.other" }),
    ])
    func aKeyWhoseReceiptOurCheckRefusesIsRegisteredWithItsReceiptUnverified(
        _ name: String,
        _ options: AttestationOptions
    ) async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try client.iosDevice()
            let registered = try await client.registerKey(phone, options: options)
            #expect(registered.status == 200, "\(name)")
            let warning = app.logs.objects.last { $0["message"] == .string("attestation receipt unverified") }
            #expect(warning?["reason"]?.stringValue?.hasPrefix("appattest.receipt_") == true, "\(name)")
            let row = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(row["receipt_unverified"] == .bool(true), "\(name)")
            #expect(row["receipt"]?.bytesValue?.isEmpty == false, "\(name)")
            phone.nextChallenge = try await client.challenge(deviceID: phone.deviceID)
            #expect(try await client.metered(&phone).status == 200, "\(name)")
            // A genuine receipt for the same device ID's next key clears the mark.
            var reinstalled = try client.iosDevice(deviceID: phone.deviceID)
            #expect(try await client.registerKey(reinstalled).status == 200)
            let rebound = try #require(try await app.row("DEVICE#\(phone.deviceID)", "ATTEST_KEY"))
            #expect(rebound["receipt_unverified"] == nil)
            reinstalled.nextChallenge = try await client.challenge(deviceID: phone.deviceID)
            #expect(try await client.metered(&reinstalled).status == 200)
        }
    }

    @Test func aKeyBoundToAnotherDeviceIDIsRefusedAtRegistration() async throws {
        let app = try await GateTestApp()
        try await app.test { client in
            var phone = try await Self.registered(client)
            // The same genuine key, attested again for a freshly minted device ID.
            let minted = randomDeviceID()
            let refused = try await client.registerKey(phone, deviceID: minted)
            #expect(refused.status == 403)
            #expect(refused.error == "attestation_rejected")
            #expect(
                app.logs.objects.last { $0["message"] == .string("key registration refused") }?["reason"]
                    == .string("appattest.key_owned_by_other_device")
            )
            #expect(try await app.row("DEVICE#\(minted)", "ATTEST_KEY") == nil)
            // The owner keeps working.
            #expect(try await client.metered(&phone).status == 200)
        }
    }
}

extension GateTestClient {
    /// The challenge the device will use next (the one the last response handed out).
    func challengeOf(_ device: IOSDevice) throws -> String {
        try #require(device.nextChallenge, "the last response carried no next challenge")
    }
}

extension GateTestApp {
    /// A challenge row as stored (`DEVICE#{id}` / `ATTEST_CHALLENGE#{b64url}`).
    func challengeRow(deviceID: String, challenge: String) async throws -> Item? {
        let bytes = try #require(Bytes.fromBase64(challenge))
        return try await row("DEVICE#\(deviceID)", "ATTEST_CHALLENGE#\(Bytes.base64URL(bytes))")
    }
}
