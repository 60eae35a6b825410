import AppTestSupport
import AttestCore
import DynamoDB
import HTTPClient
import TestSupport
import Testing

/// Android device tiers (docs/playintegrity.md): device recall through the real router, moto and
/// `local-harness/fake_google.py`, which keeps recall bits and activity levels per *physical* phone. One
/// simulated phone minting 20 device IDs gets one free tier with `PLAY_DEVICE_RECALL=on`; the route's
/// `repeatAllowance` (default 0/0) meters the others.
@Suite struct AndroidDeviceRecallFlowTests {
    /// An enforce route with a free tier of 3 calls a day (and the default repeat allowance, 0/0).
    static func start(
        recall: Bool = true,
        onUnknownDevice: String? = nil
    ) async throws -> (
        GateTestApp, FakeGoogleProcess
    ) {
        let fake = try await FakeGoogleProcess.start(serviceAccountJSON: try FakePlay.serviceAccountJSON())
        do {
            guard case .object(var route) = GateTestApp.routeEntry(mode: "enforce", firstDay: 3, laterDays: 3) else {
                throw GateTestError("route entry is not an object")
            }
            if let onUnknownDevice { route["onUnknownDevice"] = .string(onUnknownDevice) }
            var settings = FakePlay.settings(fake)
            if recall { settings["PLAY_DEVICE_RECALL"] = "on" }
            let app = try await GateTestApp(routes: GateTestApp.routes([.object(route)]), settings: settings)
            return (app, fake)
        } catch {
            fake.stop()
            throw error
        }
    }

    static func send(
        _ client: GateTestClient,
        _ fake: FakeGoogleProcess,
        phone: SimulatedAndroidPhone,
        deviceID: String
    ) async throws -> GateTestResponse {
        try await client.send(try await client.androidCall(on: phone, deviceID: deviceID, fake: fake))
    }

    static func recallWrites(_ fake: FakeGoogleProcess, _ phone: SimulatedAndroidPhone) async throws -> Int64 {
        try await fake.stats(transport: CurlTransport())["recall_writes_by_device"]?[phone.physicalID]?.intValue ?? 0
    }

    /// The tier on the device ID's profile row.
    static func storedTier(_ app: GateTestApp, _ deviceID: String) async throws -> (String?, String?) {
        let row = try await app.row("DEVICE#\(deviceID)", "PROFILE")
        return (row?["tier"]?.stringValue, row?["tier_reason"]?.stringValue)
    }

    @Test func twentyDeviceIDsOnOnePhoneGetOneFreeTier() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let phone = SimulatedAndroidPhone()
            let ids = (0..<20).map { _ in randomDeviceID() }
            for (index, id) in ids.enumerated() {
                let response = try await Self.send(client, fake, phone: phone, deviceID: id)
                let line = app.decisions.last
                if index == 0 {
                    #expect(response.status == 200, "\(line?["reason"] ?? .null)")
                    #expect(line?["tier"] == .string("first"))
                    #expect(line?["tierReason"] == .string("recall.clear"))
                } else {
                    // Genuine, but a repeat on this phone: the repeat allowance (0 a day) refuses it.
                    #expect(response.status == 429, "ID \(index)")
                    #expect(line?["outcome"] == .string("genuine"))
                    #expect(line?["tier"] == .string("repeat"), "ID \(index)")
                    #expect(line?["tierReason"] == .string("recall.set"))
                }
            }
            // Google was asked to write once, for the first ID; the phone's bit is set this month.
            #expect(try await Self.recallWrites(fake, phone) == 1)
            let state = try await fake.physicalDevice(phone.physicalID, transport: CurlTransport())
            #expect(state.bitFirst && !state.bitSecond && !state.bitThird)
            #expect(state.firstWriteMonth != nil)
            #expect(try await Self.storedTier(app, ids[0]) == ("first", "recall.clear"))
            #expect(try await Self.storedTier(app, ids[7]) == ("repeat", "recall.set"))

            // The first ID keeps its free tier (3 a day, 1 spent) with no more writes; a repeat stays refused.
            let settling = try #require(app.decisions.first { $0["tierReason"] == .string("recall.clear") })
            #expect(try await Self.send(client, fake, phone: phone, deviceID: ids[0]).status == 200)
            // A settled tier costs no request: the settling call made exactly one more (its tier write).
            let settled = try #require(app.decisions.last)
            #expect(settled["tierReason"] == .string("recall.clear"))
            #expect(
                settling["ddbRequests"]?.intValue == settled["ddbRequests"]?.intValue.map { $0 + 1 },
                "\(settling["ddbRequests"] ?? .null) vs \(settled["ddbRequests"] ?? .null)"
            )
            #expect(try await Self.send(client, fake, phone: phone, deviceID: ids[0]).status == 200)
            #expect(try await Self.send(client, fake, phone: phone, deviceID: ids[0]).status == 429)
            #expect(try await Self.send(client, fake, phone: phone, deviceID: ids[3]).status == 429)
            #expect(try await Self.recallWrites(fake, phone) == 1)

            // Another phone has bits of its own.
            let other = SimulatedAndroidPhone()
            #expect(try await Self.send(client, fake, phone: other, deviceID: randomDeviceID()).status == 200)
            #expect(app.decisions.last?["tier"] == .string("first"))
        }
    }

    /// The documented limit: Google's write takes time to show (up to 30 s), so an ID minted on the same
    /// phone within that window still reads a clear bit and gets a first tier; after it, none does.
    @Test func idsMintedWithinGooglesPropagationDelayEachGetAFirstTier() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            try await fake.setDeviceRecall(propagationSeconds: 5, transport: CurlTransport())
            let phone = SimulatedAndroidPhone()
            #expect(try await Self.send(client, fake, phone: phone, deviceID: randomDeviceID()).status == 200)
            #expect(try await Self.send(client, fake, phone: phone, deviceID: randomDeviceID()).status == 200)
            #expect(app.decisions.last?["tierReason"] == .string("recall.clear"))
            try await Task.sleep(for: .milliseconds(5500))
            #expect(try await Self.send(client, fake, phone: phone, deviceID: randomDeviceID()).status == 429)
            #expect(app.decisions.last?["tierReason"] == .string("recall.set"))
        }
    }

    /// A phone whose bit another app of the account (or an earlier install) set: no ID gets the free tier.
    @Test func aPhoneWhoseBitIsAlreadySetIsRepeatFromItsFirstID() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let phone = SimulatedAndroidPhone()
            try await fake.setPhysicalDevice(phone.physicalID, bitFirst: true, transport: CurlTransport())
            let id = randomDeviceID()
            #expect(try await Self.send(client, fake, phone: phone, deviceID: id).status == 429)
            #expect(try await Self.storedTier(app, id) == ("repeat", "recall.set"))
            #expect(try await Self.recallWrites(fake, phone) == 0)
        }
    }

    /// Google's write failing is `unknown` (never `first`), counted as unavailable, metered by
    /// `onUnknownDevice` (`repeat` by default); the next call with Google back settles the tier.
    @Test func aFailedWriteIsUnknownAndALaterCallSettlesIt() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let phone = SimulatedAndroidPhone()
            let id = randomDeviceID()
            try await fake.setDeviceRecall(writeStatus: 503, transport: CurlTransport())
            #expect(try await Self.send(client, fake, phone: phone, deviceID: id).status == 429)
            let line = try #require(app.decisions.last)
            #expect(line["tier"] == .string("unknown"))
            #expect(line["tierReason"] == .string("recall.unavailable"))
            #expect(line["unavailable"] == .int(1))
            #expect(try await Self.storedTier(app, id) == ("unknown", "recall.unavailable"))
            #expect(!(try await fake.physicalDevice(phone.physicalID, transport: CurlTransport())).bitFirst)

            try await fake.setDeviceRecall(writeStatus: 200, transport: CurlTransport())
            #expect(try await Self.send(client, fake, phone: phone, deviceID: id).status == 200)
            #expect(try await Self.storedTier(app, id) == ("first", "recall.clear"))
        }
    }

    /// A route that opts in (`onUnknownDevice: first`) serves an `unknown` ID its free tier.
    @Test func noRecallInTheVerdictIsUnknownAndFollowsOnUnknownDevice() async throws {
        let (app, fake) = try await Self.start(onUnknownDevice: "first")
        defer { fake.stop() }
        try await app.test { client in
            try await fake.setDeviceRecall(enabled: false, transport: CurlTransport())
            let phone = SimulatedAndroidPhone()
            let id = randomDeviceID()
            #expect(try await Self.send(client, fake, phone: phone, deviceID: id).status == 200)
            #expect(app.decisions.last?["tier"] == .string("unknown"))
            #expect(app.decisions.last?["unavailable"] == .int(1))
            #expect(try await Self.storedTier(app, id) == ("unknown", "recall.unavailable"))
            // Nothing was written: with no values we cannot know the bit is clear.
            #expect(try await Self.recallWrites(fake, phone) == 0)
        }
    }

    /// A `deviceRecall` whose shape we do not know is never read as a clear bit.
    @Test func anUnknownRecallShapeIsNeverFirst() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let raw = JSONValue.object(["values": .object(["bitFirst": .string("false")])])
            try await fake.setDeviceRecall(raw: raw, transport: CurlTransport())
            let id = randomDeviceID()
            #expect(try await Self.send(client, fake, phone: SimulatedAndroidPhone(), deviceID: id).status == 429)
            #expect(try await Self.storedTier(app, id) == ("unknown", "recall.unavailable"))
        }
    }

    /// Recall off: every new ID is `first` (tiering off), no bit is read or written; recent device
    /// activity still refuses a phone at `LEVEL_4` (the route's default maximum is `LEVEL_3`).
    @Test func recallOffGivesEveryIDItsTierButLevelFourIsStillRefused() async throws {
        let (app, fake) = try await Self.start(recall: false)
        defer { fake.stop() }
        try await app.test { client in
            let phone = SimulatedAndroidPhone()
            for _ in 0..<3 {
                #expect(try await Self.send(client, fake, phone: phone, deviceID: randomDeviceID()).status == 200)
                #expect(app.decisions.last?["tier"] == .string("first"))
            }
            #expect(try await Self.recallWrites(fake, phone) == 0)

            try await fake.setPhysicalDevice(phone.physicalID, activity: "LEVEL_4", transport: CurlTransport())
            let refused = try await Self.send(client, fake, phone: phone, deviceID: randomDeviceID())
            AndroidFlowTests.expectRefused(refused, app, reason: "play.device_activity")
            // Another phone, calm, is served.
            #expect(
                try await Self.send(client, fake, phone: SimulatedAndroidPhone(), deviceID: randomDeviceID()).status
                    == 200
            )
        }
    }

    /// With recall on, a refused proof (activity too high) writes nothing and records no tier.
    @Test func aRefusedProofNeverWritesTheBit() async throws {
        let (app, fake) = try await Self.start()
        defer { fake.stop() }
        try await app.test { client in
            let phone = SimulatedAndroidPhone()
            try await fake.setPhysicalDevice(phone.physicalID, activity: "LEVEL_4", transport: CurlTransport())
            let id = randomDeviceID()
            AndroidFlowTests.expectRefused(
                try await Self.send(client, fake, phone: phone, deviceID: id),
                app,
                reason: "play.device_activity"
            )
            #expect(try await Self.recallWrites(fake, phone) == 0)
            #expect(try await Self.storedTier(app, id).0 == nil)
        }
    }
}
