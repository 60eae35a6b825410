import App
import AppTestSupport
import AttestCore
import CivilTime
import Crypto
import CryptoTestSupport
import DynamoDB
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// A DeviceCheck token passes nothing while DeviceCheck is off and never overrides a refusal
/// (docs/playintegrity.md, "Outcomes and the merge"), through the router (enforce mode).
@Suite struct DeviceCheckFallbackTests {
    static let deviceCheckToken = Bytes.base64(Array(repeating: UInt8(7), count: 600))

    @Test func aDeviceCheckTokenWithDeviceCheckUnconfiguredPassesNothing() async throws {
        let app = try await GateTestApp(routes: GateTestApp.route(mode: "enforce", onUnavailable: "allow"))
        #expect(app.configuration.deviceCheck == nil)
        try await app.test { client in
            for token in ["x", Self.deviceCheckToken] {
                let deviceID = randomDeviceID()
                let response = try await client.execute(
                    "/v1/generate",
                    headers: [WireHeader.deviceID.name: deviceID, WireHeader.deviceCheckToken.name: token],
                    body: Array("{}".utf8)
                )
                #expect(response.status == 403)
                #expect(response.error == "attestation_required")
                // Abstaining, never "unavailable" (which the route's policy would have let through).
                #expect(app.decisions.last?["outcome"] == .string("absent"))
                #expect(app.decisions.last?["unavailable"] == nil)
            }
            #expect(app.upstream.requests.isEmpty)
        }
    }

    @Test func aConfiguredDeviceCheckNeverOverridesAnAppAttestRejection() async throws {
        let rig = try await DeviceCheckRig()
        defer { rig.fake.stop() }
        let app = rig.app
        func deviceCheckRequests() async throws -> Int64 { try await rig.requests() }

        try await app.test { client in
            // Control: the token is one Apple vouches for, so DeviceCheck alone does pass here.
            let alone = try await rig.deviceCheckOnly(client, deviceID: randomDeviceID())
            #expect(alone.status == 200)
            #expect(app.decisions.last?["proof"] == .string("device_check"))
            #expect(try await deviceCheckRequests() == 1)

            var phone = try client.iosDevice()
            #expect(try await client.registerKey(phone).status == 200)
            #expect(try await client.metered(&phone).status == 200)

            // App Attest rejections, each with the genuine DeviceCheck token attached.
            let body = Array(#"{"prompt":"p"}"#.utf8)
            var rejected: [(String, [String: String], String)] = []
            // 1. A body the assertion does not cover.
            var headers = try client.proofHeaders(
                &phone,
                path: "/v1/generate",
                body: Array("signed".utf8),
                challenge: try #require(phone.nextChallenge)
            )
            rejected.append(("changed body", headers, "binding.body_mismatch"))
            // 2. A spent challenge (the one just used above is spent by attempt 1).
            let spent = try #require(phone.nextChallenge)
            headers = try client.proofHeaders(&phone, path: "/v1/generate", body: body, challenge: spent)
            rejected.append(("spent challenge", headers, "challenge.unspendable"))
            // 3. A device ID without a registered key (a freshly minted ID, a genuine key's assertion).
            var stranger = try client.iosDevice()
            headers = try client.proofHeaders(
                &stranger,
                path: "/v1/generate",
                body: body,
                challenge: try await client.challenge(deviceID: stranger.deviceID)
            )
            rejected.append(("no registered key", headers, "appattest.no_registered_key"))

            for (name, var headers, reason) in rejected {
                headers[WireHeader.deviceCheckToken.name] = Self.deviceCheckToken
                let response = try await client.execute("/v1/generate", headers: headers, body: body)
                #expect(response.status == 403, "\(name)")
                #expect(app.decisions.last?["proof"] == .string("app_attest"), "\(name)")
                #expect(app.decisions.last?["reason"] == .string(reason), "\(name)")
            }
            // DeviceCheck was not even asked: a binding provider answered.
            #expect(try await deviceCheckRequests() == 1)

            // Nor over a Play Integrity rejection (a token Google does not know).
            let android = try await client.androidCall(deviceID: randomDeviceID())
            let response = try await client.send(
                android,
                headers: [WireHeader.deviceCheckToken.name: Self.deviceCheckToken]
            )
            #expect(response.status == 403)
            #expect(app.decisions.last?["reason"] == .string("play.decode_invalid_token"))
            #expect(try await deviceCheckRequests() == 1)
        }
    }
}

/// An app whose route opts in to DeviceCheck (or not), with the fake Apple vouching for `token`.
struct DeviceCheckRig {
    static let token = DeviceCheckFallbackTests.deviceCheckToken
    let fake: FakeGoogleProcess
    let app: GateTestApp

    init(optIn: Bool = true, budget: Int? = nil, onUnavailable: String = "allow") async throws {
        let deviceCheckKey = try P256PrivateKey()
        fake = try await FakeGoogleProcess.start(
            serviceAccountJSON: try FakePlay.serviceAccountJSON(),
            deviceCheckKeyPEM: deviceCheckKey.pemRepresentation,
            extraArguments: ["--devicecheck-key-id", "DCKEY12345", "--devicecheck-team-id", GateTestApp.teamID]
        )
        var settings = FakePlay.deviceCheckSettings(fake, keyID: "DCKEY12345")
        for (name, value) in FakePlay.settings(fake) { settings[name] = value }
        if let budget { settings["DEVICECHECK_BUDGET_PER_DEVICE"] = String(budget) }
        guard case .object(var route) = GateTestApp.routeEntry(mode: "enforce", onUnavailable: onUnavailable) else {
            throw GateTestError("routeEntry is not an object")
        }
        if optIn { route["deviceCheckFallback"] = .bool(true) }
        app = try await GateTestApp(routes: GateTestApp.routes([.object(route)]), settings: settings)
        try await fake.control(
            "/control/devicecheck",
            .object(["token": .string(Self.token)]),
            transport: CurlTransport()
        )
    }

    /// Calls Apple's DeviceCheck has answered so far.
    func requests() async throws -> Int64 {
        try #require(try await fake.stats(transport: CurlTransport())["devicecheck_requests"]?.intValue)
    }

    func control(_ body: JSONValue) async throws {
        try await fake.control("/control/devicecheck", body, transport: CurlTransport())
    }

    /// A metered call carrying only `X-Device-ID`, a DeviceCheck token and (unless `challenge` is "") a
    /// challenge: a fresh one issued to `deviceID` when nil.
    func deviceCheckOnly(
        _ client: GateTestClient,
        deviceID: String,
        token: String = DeviceCheckRig.token,
        challenge: String? = nil,
        timeLeft: TimeInterval = 15
    ) async throws -> GateTestResponse {
        var headers = [WireHeader.deviceID.name: deviceID, WireHeader.deviceCheckToken.name: token]
        var challengeText = challenge ?? ""
        if challenge == nil { challengeText = try await client.challenge(deviceID: deviceID) }
        if !challengeText.isEmpty { headers[WireHeader.challenge.name] = challengeText }
        return try await client.execute("/v1/generate", headers: headers, body: Array("{}".utf8), timeLeft: timeLeft)
    }
}

/// DeviceCheck is a per-route opt-in (docs/gate.md), as alone it would be an open door (any number of fresh IDs
/// on one genuine token, an unbudgeted call to Apple per junk token, Apple's throttling let through by
/// `onUnavailable: allow`).
@Suite struct DeviceCheckOptInTests {
    @Test func deviceCheckConfiguredGloballyChangesNothingOnARouteThatDidNotOptIn() async throws {
        let rig = try await DeviceCheckRig(optIn: false)
        defer { rig.fake.stop() }
        try await rig.app.test { client in
            let response = try await rig.deviceCheckOnly(client, deviceID: randomDeviceID())
            #expect(response.status == 403)
            #expect(rig.app.decisions.last?["outcome"] == .string("absent"))
            #expect(try await rig.requests() == 0)
            #expect(rig.app.upstream.requests.isEmpty)
        }
    }

    @Test func aDeviceCheckOnlyCallSpendsAChallengeIssuedToThisDeviceIDBeforeAppleIsAsked() async throws {
        let rig = try await DeviceCheckRig()
        defer { rig.fake.stop() }
        try await rig.app.test { client in
            let deviceID = randomDeviceID()
            // No challenge, or one issued to another device ID: refused, and Apple is not asked.
            let none = try await rig.deviceCheckOnly(client, deviceID: deviceID, challenge: "")
            #expect(none.status == 403)
            #expect(rig.app.decisions.last?["reason"] == .string("challenge.malformed"))
            let foreign = try await client.challenge(deviceID: randomDeviceID())
            let stolen = try await rig.deviceCheckOnly(client, deviceID: deviceID, challenge: foreign)
            #expect(stolen.status == 403)
            #expect(rig.app.decisions.last?["reason"] == .string("challenge.unspendable"))
            #expect(try await rig.requests() == 0)

            // Its own fresh challenge: Apple is asked once, the call passes and hands out the next challenge.
            let own = try await client.challenge(deviceID: deviceID)
            let passed = try await rig.deviceCheckOnly(client, deviceID: deviceID, challenge: own)
            #expect(passed.status == 200)
            #expect(rig.app.decisions.last?["proof"] == .string("device_check"))
            #expect(passed.header(WireHeader.nextChallenge.name) != nil)
            // The same challenge again is spent: refused before Apple.
            let again = try await rig.deviceCheckOnly(client, deviceID: deviceID, challenge: own)
            #expect(again.status == 403)
            #expect(rig.app.decisions.last?["reason"] == .string("challenge.unspendable"))
            #expect(try await rig.requests() == 1)
            #expect(rig.app.upstream.requests.count == 1)
        }
    }

    @Test(arguments: ["429", "hang"])
    func appleUnavailableRefusesADeviceCheckOnlyCallAndIsCountedAsUnavailable(_ failure: String) async throws {
        // onUnavailable: allow, which used to let a caller through who provoked Apple's throttling.
        let rig = try await DeviceCheckRig(onUnavailable: "allow")
        defer { rig.fake.stop() }
        try await rig.app.test { client in
            if failure == "429" {
                try await rig.control(.object(["status": .int(429)]))
            } else {
                try await rig.control(.object(["hang": .int(4)]))
            }
            // A short invocation: the hanging call to Apple ends within it, not after a fixed 3 s,
            // and early enough to answer before Lambda's deadline (`InvocationContext.answerMargin`). The
            // clock starts with the metered call itself (its challenge is fetched first), as the deadline does.
            let deviceID = randomDeviceID()
            let challenge = try await client.challenge(deviceID: deviceID)
            let started = ContinuousClock.now
            let response = try await rig.deviceCheckOnly(client, deviceID: deviceID, challenge: challenge, timeLeft: 2)
            let took = ContinuousClock.now - started
            #expect(response.status == 403)
            if failure == "hang" {
                // Before: the hang ran to the deadline itself and the answer came after it.
                #expect(took < .seconds(2), "answered \(took) into a 2 s invocation")
            }
            #expect(response.error == "attestation_required")
            let decision = try #require(rig.app.decisions.last)
            #expect(decision["outcome"] == .string("rejected"))
            #expect(decision["reason"] == .string("devicecheck.unavailable"))
            #expect(decision["unavailable"] == .int(1))
            #expect(decision["providerUnavailable"] == .bool(true))
            #expect(rig.app.upstream.requests.isEmpty)
            #expect(try await rig.requests() == 1)
        }
    }

    @Test func theDailyDeviceCheckBudgetIsPerDeviceAndSpentOnlyOnCallsToApple() async throws {
        let rig = try await DeviceCheckRig(budget: 2)
        defer { rig.fake.stop() }
        try await rig.app.test { client in
            let deviceID = randomDeviceID()
            // A malformed token costs nothing: refused before our JWT, before the budget.
            let junk = try await rig.deviceCheckOnly(client, deviceID: deviceID, token: "x")
            #expect(junk.status == 403)
            #expect(rig.app.decisions.last?["reason"] == .string("devicecheck.token_malformed"))
            for _ in 0..<2 { #expect(try await rig.deviceCheckOnly(client, deviceID: deviceID).status == 200) }
            let third = try await rig.deviceCheckOnly(client, deviceID: deviceID)
            #expect(third.status == 403)
            #expect(rig.app.decisions.last?["reason"] == .string("devicecheck.budget_exhausted"))
            #expect(try await rig.requests() == 2)
            let day = LocalCalendar.utc.day(at: rig.app.clock.now()).iso
            let row = try await rig.app.row("DEVICE#\(deviceID)", "DEVICECHECK#\(day)")
            #expect(row?["queries"]?.intValue == 2)
            // Another device ID has a budget of its own.
            #expect(try await rig.deviceCheckOnly(client, deviceID: randomDeviceID()).status == 200)
            #expect(try await rig.requests() == 3)
        }
    }
}
