import App
import AppTestSupport
import AttestCore
import TestSupport
import Testing
import WireContract

/// Debug tokens end to end (docs/clients.md, "Debug tokens"): made with the shipped CLI, used on an enforce route
/// of an app served on moto, metered as one subject, revoked and expired from the next call on, ignored without
/// `DEBUG_TOKENS=on`, and never written to a log.
@Suite(.enabled(if: LocalDynamoDB.endpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct DebugTokenTests {
    static let routes = GateTestApp.routes([
        GateTestApp.routeEntry(mode: "enforce", firstDay: 3, laterDays: 3),
        GateTestApp.routeEntry(path: "/v1/summary", feature: "summary", mode: "enforce", upstreamPath: "/summary"),
    ])

    static func app(debugTokens: String = "on") async throws -> GateTestApp {
        try await GateTestApp(routes: Self.routes, settings: ["DEBUG_TOKENS": debugTokens])
    }

    static func create(
        _ app: GateTestApp,
        _ extra: [String]
    ) async throws -> (token: String, outcome: CLIRunner.Outcome) {
        let outcome = await LiveControlTests.cli(app, ["debug-token", "create"] + extra)
        let token = try #require(
            LiveControlTests.json(outcome)["token"]?.stringValue,
            "\(outcome.stdout) \(outcome.stderr)"
        )
        return (token, outcome)
    }

    static func call(
        _ client: GateTestClient,
        _ token: String?,
        path: String = "/v1/generate",
        device: String = randomDeviceID()
    ) async throws -> GateTestResponse {
        var headers = [WireHeader.deviceID.name: device]
        if let token { headers[WireHeader.debugToken.name] = token }
        return try await client.execute(path, headers: headers, body: Array(#"{"prompt":"hi"}"#.utf8))
    }

    @Test func aTokenPassesAnEnforceRouteAsOneMeteredSubjectUntilRevoked() async throws {
        let app = try await Self.app()
        let (token, created) = try await Self.create(
            app,
            ["--name", "ios-ci", "--expires", "7d", "--routes", "generation"]
        )
        #expect(token.hasPrefix("agdt_") && token.utf8.count == 48)
        #expect(!created.stderr.contains(token), "the audit line must not carry the token")
        try await app.test { client in
            // Three device IDs, one allowance: the token's (firstDay 3).
            for expected in ["2", "1", "0"] {
                let served = try await Self.call(client, token)
                #expect(served.status == 200 && served.header(WireHeader.quotaRemaining.key) == expected)
            }
            let spent = try await Self.call(client, token)
            #expect(spent.status == 429 && spent.error == "quota_exhausted")
            // Not on a route the token was not made for; not a forged token of the right shape.
            #expect(try await Self.call(client, token, path: "/v1/summary").status == 403)
            #expect(try await Self.call(client, "agdt_" + String(repeating: "A", count: 43)).status == 403)
            #expect(try await Self.call(client, nil).status == 403)

            let list = LiveControlTests.json(await LiveControlTests.cli(app, ["debug-token", "list"]))
            let listed = list["tokens"]?.arrayValue?.first { $0["name"] == .string("ios-ci") }
            #expect(listed?["state"] == .string("active") && listed?["token"] == nil)
            #expect(await LiveControlTests.cli(app, ["debug-token", "revoke", "--name", "ios-ci"]).status == 0)
            let revoked = try await Self.call(client, token)
            #expect(revoked.status == 403 && revoked.error == "attestation_required")
            let again = await LiveControlTests.cli(app, ["debug-token", "revoke", "--name", "ios-ci"])
            #expect(again.status == 1 && LiveControlTests.json(again)["error"] == .string("not_found"))
        }
        let lines = app.decisions
        let passed = lines.filter { $0["proof"] == .string("debug") && $0["outcome"] == .string("genuine") }
        #expect(passed.count == 4 && passed.allSatisfy { $0["device"] == .string("debug:ios-ci") })
        #expect(passed.filter { $0["decision"] == .string("pass") }.count == 3)
        #expect(passed.allSatisfy { $0["debug_token"] == .int(1) })
        #expect(lines.contains { $0["reason"] == .string("debug.revoked") })
        #expect(lines.contains { $0["reason"] == .string("debug.route_not_allowed") })
        #expect(lines.contains { $0["reason"] == .string("debug.unknown") })
        #expect(!app.logs.lines.contains { $0.contains(token) }, "a log line carries the token")
    }

    @Test func anExpiredTokenIsRefused() async throws {
        let app = try await Self.app()
        let (token, _) = try await Self.create(app, ["--name", "qa.pixel-8", "--expires", "1h"])
        try await app.test { (client: GateTestClient) async throws in
            #expect(try await Self.call(client, token, path: "/v1/summary").status == 200)
            app.clock.advance(by: 2 * 3600)
            #expect(try await Self.call(client, token, path: "/v1/summary").status == 403)
        }
        #expect(app.decisions.last?["reason"] == .string("debug.expired"))
    }

    @Test func withoutDebugTokensOnTheHeaderIsIgnored() async throws {
        let app = try await Self.app(debugTokens: "off")
        let (token, created) = try await Self.create(app, ["--name", "ios-ci", "--expires", "1d"])
        #expect(LiveControlTests.json(created)["warning"] != nil)
        try await app.test { client in
            let refused = try await Self.call(client, token)
            #expect(refused.status == 403 && refused.error == "attestation_required")
        }
        #expect(app.decisions.last?["proof"] == .string("none"))
    }

    @Test(arguments: [
        ["debug-token", "create", "--name", "ios-ci"],
        ["debug-token", "create", "--name", "ios-ci", "--expires", "0d"],
        ["debug-token", "create", "--name", "ios-ci", "--expires", "400d"],
        ["debug-token", "create", "--name", "Bad Name", "--expires", "1d"], ["debug-token", "revoke"],
        ["debug-token", "list", "--all"], ["debug-token"],
    ])
    func badArgumentsExit2(_ arguments: [String]) async {
        let outcome = await CLIRunner.run(arguments, environment: ConfigCommandTests.valid)
        #expect(outcome.status == 2 && !outcome.stderr.isEmpty)
    }
}
