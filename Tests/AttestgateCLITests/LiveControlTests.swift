import App
import AppTestSupport
import AttestCore
import CivilTime
import DynamoDB
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// The live controls (`attestgate device …`, `attestgate ceiling …`; docs/operations.md, "Live controls") run as
/// they ship, the real binary started as `attestgate`, against the table of an app served on moto: each applies
/// to the very next call, with no redeploy.
@Suite(.enabled(if: LocalDynamoDB.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct LiveControlTests {
    static let routes = GateTestApp.routes([
        GateTestApp.routeEntry(mode: "enforce", firstDay: 3, laterDays: 3),
        GateTestApp.routeEntry(path: "/v1/tutor", feature: "tutor", mode: "monitor", upstreamPath: "/tutor"),
        GateTestApp.routeEntry(path: "/v1/free", feature: "free", mode: "off", upstreamPath: "/free"),
    ])

    static func cli(
        _ app: GateTestApp,
        _ arguments: [String],
        operator name: String = "ops-test"
    ) async
        -> CLIRunner.Outcome
    {
        var environment = app.environment.values
        environment["ATTESTGATE_OPERATOR"] = name
        environment["AWS_SECRET_ACCESS_KEY"] = "secret-never-logged"
        return await CLIRunner.run(arguments, environment: environment)
    }

    static func json(_ outcome: CLIRunner.Outcome) -> JSONValue {
        (try? JSONValue.parse(Array(outcome.stdout.utf8))) ?? .null
    }

    static func today(_ app: GateTestApp) -> String { LocalCalendar.utc.day(at: app.clock.now()).iso }

    @Test func aBlockedDeviceIDIsRefusedOnEveryModeUntilUnblocked() async throws {
        let app = try await GateTestApp(routes: Self.routes)
        try await app.test { client in
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            #expect(try await client.metered(&device).status == 200)

            let blocked = await Self.cli(
                app,
                ["device", "block", device.deviceID.uppercased(), "--reason", "abuse.script"]
            )
            #expect(blocked.status == 0, "\(blocked.stderr)")
            #expect(Self.json(blocked)["blocked"] == .string(device.deviceID))
            // The audit line: who, what, when; never a secret.
            #expect(blocked.stderr.contains(#""audit":true"#) && blocked.stderr.contains(#""actor":"ops-test""#))
            #expect(
                blocked.stderr.contains(#""action":"device.block""#) && !blocked.stderr.contains("secret-never-logged")
            )

            let headers = [WireHeader.deviceID.name: device.deviceID]
            let enforced = try await client.metered(&device)
            #expect(enforced.status == 403 && enforced.error == "device_blocked")
            for path in ["/v1/tutor", "/v1/free"] {
                let response = try await client.execute(path, headers: headers, body: Array("{}".utf8))
                #expect(response.status == 403 && response.error == "device_blocked", "\(path)")
            }
            let show = Self.json(await Self.cli(app, ["device", "show", device.deviceID]))
            #expect(show["blocked"]?["reason"] == .string("abuse.script"))
            #expect(show["blocked"]?["by"] == .string("ops-test"))
            #expect(show["key"]?["keyId"] == .string(Bytes.base64(device.key.keyId)))
            #expect(show["allowancesToday"]?.arrayValue?.first?["used"] == .int(1))

            #expect(await Self.cli(app, ["device", "unblock", device.deviceID]).status == 0)
            #expect(try await client.metered(&device).status == 200)
            // Unblocking what is not blocked is refused, with its own code.
            let again = await Self.cli(app, ["device", "unblock", device.deviceID])
            #expect(again.status == 1 && Self.json(again)["error"] == .string("not_blocked"))
        }
        let lines = app.decisions.filter { $0["decision"] == .string("device_blocked") }
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0["device_blocked"] == .int(1) && $0["blocked"] == .string("device") })
        // The audit rows: block and unblock, in the table.
        let audit = try await app.dynamo.query(
            Query(table: app.table, keyCondition: "\(name: "PK") = \(value: .s("AUDIT#\(Self.today(app))"))"),
            deadline: .after(.seconds(10))
        )
        let actions = audit.items.compactMap { $0["entry"]?.stringValue }.map {
            (try? JSONValue.parse(Array($0.utf8)))?["action"]
        }
        #expect(actions.contains(.string("device.block")) && actions.contains(.string("device.unblock")))
    }

    @Test func aBlockedKeyIsRefusedAndANewKeyOfTheDeviceIsNot() async throws {
        let app = try await GateTestApp(routes: Self.routes)
        try await app.test { client in
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            let keyID = Bytes.base64(device.key.keyId)
            let blocked = await Self.cli(app, ["device", "block", "--key", keyID, "--reason", "farm"])
            #expect(
                blocked.status == 0 && Self.json(blocked)["device"] == .string(device.deviceID),
                "\(blocked.stderr)"
            )
            let refused = try await client.metered(&device)
            #expect(refused.status == 403 && refused.error == "device_blocked")
            let show = Self.json(await Self.cli(app, ["device", "show", device.deviceID]))
            #expect(show["key"]?["blocked"]?["reason"] == .string("farm"))
            #expect(show["blocked"] == nil)

            // A reinstall binds a new key to the same device ID: the block was the old key's.
            try device.reinstall()
            #expect(try await client.registerKey(device).status == 200)
            #expect(try await client.metered(&device).status == 200)
            let stale = await Self.cli(app, ["device", "block", "--key", keyID, "--reason", "farm"])
            #expect(stale.status == 1 && Self.json(stale)["error"] == .string("key_not_current"))
            let unknown = await Self.cli(
                app,
                [
                    "device", "block", "--key", Bytes.base64([UInt8](repeating: 7, count: 32)),
                    "--reason", "farm",
                ]
            )
            #expect(unknown.status == 1 && Self.json(unknown)["error"] == .string("unknown_key"))
        }
        #expect(app.decisions.contains { $0["blocked"] == .string("key") })
    }

    @Test func aGrantGivesExactlyThatManyMoreCallsToday() async throws {
        let app = try await GateTestApp(routes: Self.routes)
        try await app.test { client in
            var device = try client.iosDevice()
            #expect(try await client.registerKey(device).status == 200)
            for _ in 0..<3 { #expect(try await client.metered(&device).status == 200) }
            #expect(try await client.metered(&device).status == 429)

            let grant = await Self.cli(
                app,
                ["device", "grant", device.deviceID, "--feature", "generation", "--calls", "2"]
            )
            #expect(grant.status == 0, "\(grant.stderr)")
            #expect(Self.json(grant)["grantedToday"] == .int(2))
            let first = try await client.metered(&device)
            #expect(first.status == 200 && first.header(WireHeader.quotaRemaining.key) == "1")
            #expect(try await client.metered(&device).status == 200)
            let refused = try await client.metered(&device)
            #expect(refused.status == 429 && refused.error == "quota_exhausted")
            let show = Self.json(await Self.cli(app, ["device", "show", device.deviceID]))
            #expect(
                show["allowancesToday"]?.arrayValue?.first?["used"] == .int(5)
                    && show["allowancesToday"]?.arrayValue?.first?["granted"] == .int(2)
            )

            let unknownFeature = await Self.cli(
                app,
                ["device", "grant", device.deviceID, "--feature", "nope", "--calls", "1"]
            )
            #expect(unknownFeature.status == 1 && Self.json(unknownFeature)["error"] == .string("unknown_feature"))
        }
    }

    @Test(arguments: [1, 4])
    func aRaisedCeilingAdmitsUpToTheRaiseAndNotBeyondUnderARace(shards: Int) async throws {
        let app = try await GateTestApp(
            routes: Self.routes,
            settings: ["AI_DAILY_CALL_CEILING": "6", "AI_CEILING_SHARDS": String(shards)]
        )
        func burst(_ count: Int, _ client: GateTestClient) async throws -> [Int] {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask {
                        try await client.execute(
                            "/v1/tutor",
                            headers: [WireHeader.deviceID.name: randomDeviceID()],
                            body: Array("{}".utf8)
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        try await app.test { client in
            let before = try await burst(10, client)
            #expect(before.filter { $0 == 200 }.count == 6 && before.filter { $0 == 503 }.count == 4)

            let below = await Self.cli(app, ["ceiling", "raise", "--calls", "5"])
            #expect(below.status == 1 && Self.json(below)["error"] == .string("below_configured"))
            let raised = await Self.cli(app, ["ceiling", "raise", "--calls", "10"])
            #expect(raised.status == 0, "\(raised.stderr)")
            #expect(raised.stderr.contains(#""action":"ceiling.raise""#))

            let after = try await burst(12, client)
            #expect(after.filter { $0 == 200 }.count == 4 && after.filter { $0 == 503 }.count == 8)
            let show = Self.json(await Self.cli(app, ["ceiling", "show"]))
            #expect(show["calls"]?["configured"] == .int(6) && show["calls"]?["limit"] == .int(10))
            #expect(show["calls"]?["reserved"] == .int(10) && show["raised"] == .bool(true))
            let lower = await Self.cli(app, ["ceiling", "raise", "--calls", "8"])
            #expect(lower.status == 1 && Self.json(lower)["error"] == .string("below_reserved"))
        }
        let admitted = app.decisions.filter { $0["budget_used"] == .int(1) }
        #expect(admitted.count == 10)
        #expect(admitted.last.map { $0["ceilingRaise"] == .string("10/0") } == true)
        // The call that took the last unit saw the raised ceiling full (1.0, which JSON writes as 1).
        #expect(admitted.contains { $0["ceilingCallUse"] == .int(1) || $0["ceilingCallUse"] == .double(1) })
        #expect(admitted.allSatisfy { $0["ceilingCallUse"] != nil })
    }

    @Test(arguments: [
        ["device"], ["device", "show"], ["device", "show", "not-a-uuid"],
        ["device", "block", "--key", "short", "--reason", "x"],
        ["device", "block", "6f1c7a52-0000-4000-8000-000000000001"],
        ["device", "block", "6f1c7a52-0000-4000-8000-000000000001", "--reason", "Free Text!"],
        ["device", "grant", "6f1c7a52-0000-4000-8000-000000000001", "--feature", "generation"],
        ["device", "grant", "6f1c7a52-0000-4000-8000-000000000001", "--feature", "generation", "--calls", "0"],
        ["device", "show", "6f1c7a52-0000-4000-8000-000000000001", "--extra"],
        ["ceiling"], ["ceiling", "raise"], ["ceiling", "raise", "--usd", "abc"], ["ceiling", "raise", "--calls", "-3"],
        ["ceiling", "show", "--day", "yesterday"],
    ])
    func badArgumentsExit2WithAMessage(_ arguments: [String]) async {
        let outcome = await CLIRunner.run(arguments, environment: ConfigCommandTests.valid)
        #expect(outcome.status == 2)
        #expect(!outcome.stderr.isEmpty)
    }

    @Test func invalidSettingsExit1BeforeTouchingTheTable() async {
        var environment = ConfigCommandTests.valid
        environment["TABLE_NAME"] = nil
        let outcome = await CLIRunner.run(["ceiling", "show"], environment: environment)
        #expect(outcome.status == 1 && outcome.stdout.contains("invalid"))
    }
}
