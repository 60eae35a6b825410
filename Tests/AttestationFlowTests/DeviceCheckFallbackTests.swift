import App
import AppTestSupport
import AttestCore
import Crypto
import CryptoTestSupport
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// Issue 6, the seed's recorded DEF-6 bugs as regression tests through the router (enforce mode).
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
        let deviceCheckKey = try P256PrivateKey()
        let fake = try await FakeGoogleProcess.start(
            serviceAccountJSON: try FakePlay.serviceAccountJSON(),
            deviceCheckKeyPEM: deviceCheckKey.pemRepresentation,
            extraArguments: ["--devicecheck-key-id", "DCKEY12345", "--devicecheck-team-id", GateTestApp.teamID]
        )
        defer { fake.stop() }
        var settings = FakePlay.deviceCheckSettings(fake, keyID: "DCKEY12345")
        for (name, value) in FakePlay.settings(fake) { settings[name] = value }
        let app = try await GateTestApp(routes: GateTestApp.route(mode: "enforce"), settings: settings)
        #expect(app.configuration.deviceCheck != nil)
        try await fake.control(
            "/control/devicecheck",
            .object(["token": .string(Self.deviceCheckToken)]),
            transport: CurlTransport()
        )
        func deviceCheckRequests() async throws -> Int64 {
            try #require(try await fake.stats(transport: CurlTransport())["devicecheck_requests"]?.intValue)
        }

        try await app.test { client in
            // Control: the token is one Apple vouches for, so DeviceCheck alone does pass here.
            let alone = try await client.execute(
                "/v1/generate",
                headers: [
                    WireHeader.deviceID.name: randomDeviceID(), WireHeader.deviceCheckToken.name: Self.deviceCheckToken,
                ],
                body: Array("{}".utf8)
            )
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
