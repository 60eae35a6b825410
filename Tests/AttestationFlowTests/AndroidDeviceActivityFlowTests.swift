import AppTestSupport
import AttestCore
import HTTPClient
import TestSupport
import Testing

/// Recent device activity (docs/playintegrity.md) through the real router, moto and `local-harness/fake_google.py`
/// answering `deviceIntegrity.recentDeviceActivity`: a route refuses a verdict above its
/// `maxDeviceActivity` (LEVEL_3 by default), `UNEVALUATED` and an absent field pass, an unknown level fails.
@Suite struct AndroidDeviceActivityFlowTests {
    /// Two enforce routes: `/v1/generate` with the default maximum, `/v1/strict` with `LEVEL_1`.
    static func start() async throws -> (GateTestApp, FakeGoogleProcess) {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try FakePlay.serviceAccountJSON())
        do {
            guard case .object(var strict) = GateTestApp.routeEntry(path: "/v1/strict", mode: "enforce") else {
                throw GateTestError("route entry is not an object")
            }
            strict["maxDeviceActivity"] = .string("LEVEL_1")
            let routes = GateTestApp.routes([GateTestApp.routeEntry(mode: "enforce"), .object(strict)])
            let app = try await GateTestApp(routes: routes, settings: FakePlay.settings(fake))
            return (app, fake)
        } catch {
            fake.stop()
            throw error
        }
    }

    /// One call on `path` whose verdict is genuine apart from `recentDeviceActivity` (`nil`: absent).
    static func send(
        _ client: GateTestClient,
        _ fake: FakeGoogleProcess,
        path: String = "/v1/generate",
        activity: JSONValue?
    ) async throws -> GateTestResponse {
        let android = try await client.androidCall(deviceID: randomDeviceID(), path: path)
        var device: [String: JSONValue] = ["deviceRecognitionVerdict": .array([.string("MEETS_DEVICE_INTEGRITY")])]
        if let activity { device["recentDeviceActivity"] = .object(["deviceActivityLevel": activity]) }
        try await client.registerGenuineVerdict(android, on: fake, overrides: ["deviceIntegrity": .object(device)])
        return try await client.send(android)
    }

    @Test func theDefaultRouteRefusesLevelFourAndPassesEverythingBelow() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            for level in [nil, "UNEVALUATED", "LEVEL_1", "LEVEL_2", "LEVEL_3"] {
                let response = try await Self.send(client, fake, activity: level.map(JSONValue.string))
                #expect(response.status == 200, "\(level ?? "absent"): \(app.decisions.last?["reason"] ?? .null)")
                #expect(app.decisions.last?["outcome"] == .string("genuine"))
            }
            let refused = try await Self.send(client, fake, activity: .string("LEVEL_4"))
            AndroidFlowTests.expectRefused(refused, app, reason: "play.device_activity")
            // The body never says which check failed.
            #expect(!String(decoding: refused.body, as: UTF8.self).contains("activity"))
        }
    }

    @Test func aStrictRouteRefusesAboveItsMaximumButPassesUnevaluated() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            #expect(try await Self.send(client, fake, path: "/v1/strict", activity: .string("LEVEL_1")).status == 200)
            #expect(
                try await Self.send(client, fake, path: "/v1/strict", activity: .string("UNEVALUATED")).status == 200
            )
            for level in ["LEVEL_2", "LEVEL_3", "LEVEL_4"] {
                let response = try await Self.send(client, fake, path: "/v1/strict", activity: .string(level))
                AndroidFlowTests.expectRefused(response, app, reason: "play.device_activity", "\(level)")
            }
        }
    }

    @Test func anUnknownLevelIsRefusedOnEveryRoute() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            for value in [JSONValue.string("LEVEL_5"), .string("DEVICE_ACTIVITY_LEVEL_UNSPECIFIED"), .int(1)] {
                let response = try await Self.send(client, fake, activity: value)
                AndroidFlowTests.expectRefused(response, app, reason: "play.device_activity_unrecognized", "\(value)")
            }
        }
    }

    /// The fake's global activity level (how `make run` makes one phone hyperactive) reaches the gate.
    @Test func theFakesActivityLevelAppliesToEveryVerdict() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            try await fake.setDeviceActivity("LEVEL_4", transport: CurlTransport())
            let hyperactive = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(hyperactive, on: fake)
            AndroidFlowTests.expectRefused(try await client.send(hyperactive), app, reason: "play.device_activity")
            try await fake.setDeviceActivity(nil, transport: CurlTransport())
            let calm = try await client.androidCall(deviceID: randomDeviceID())
            try await client.registerGenuineVerdict(calm, on: fake)
            #expect(try await client.send(calm).status == 200)
        }
    }
}
