import App
import AttestCore
import Gate
import Testing

/// DeviceCheck is a per-route opt-in with a per-device daily budget (docs/gate.md, "DeviceCheck, a per-route
/// fallback").
@Suite struct DeviceCheckSettingsTests {
    static let deviceCheck = [
        "APPLE_TEAM_ID": "TEAMID1234", "APPLE_BUNDLE_IDS": "com.example.app", "DEVICECHECK_KEY_ID": "KEY",
        "DEVICECHECK_PRIVATE_KEY_FILE": "/tmp/dc.p8",
    ]

    static func environment(_ extra: [String: String]) -> Environment {
        var values = ConfigurationTests.minimal.values
        values.merge(extra, uniquingKeysWith: { $1 })
        return Environment(values)
    }

    static func route(_ fields: String) -> String {
        #"[{"method":"POST","path":"/v1/generate","feature":"generation","upstreamPath":"/generate""#
            + fields + "}]"
    }

    func problems(_ env: Environment) -> [String] {
        do {
            _ = try Configuration(environment: env)
            return []
        } catch {
            return error.problems.map { "\($0.reason.slug) \($0.variable)" }
        }
    }

    @Test func routesDoNotFallBackToDeviceCheckUnlessTheyOptIn() throws {
        let config = try Configuration(environment: Self.environment(Self.deviceCheck))
        #expect(config.deviceCheck != nil)
        #expect(config.deviceCheckBudgetPerDevice == 30)
        #expect(config.routes.allSatisfy { !$0.deviceCheckFallback })
        #expect(config.summary["deviceCheck"]?["budgetPerDevice"] == .int(30))

        var values = Self.deviceCheck
        values["ROUTES"] = Self.route(#","deviceCheckFallback":true"#)
        values["DEVICECHECK_BUDGET_PER_DEVICE"] = "5"
        let opted = try Configuration(environment: Self.environment(values))
        #expect(opted.routes.map(\.deviceCheckFallback) == [true])
        #expect(opted.deviceCheckBudgetPerDevice == 5)
        #expect(opted.summary["routes"]?.arrayValue?.first?["deviceCheckFallback"] == .bool(true))
    }

    @Test func aBadOptInOrBudgetIsNamed() {
        var values = Self.deviceCheck
        values["ROUTES"] = Self.route(#","deviceCheckFallback":"yes""#)
        #expect(problems(Self.environment(values)) == ["config.invalid_routes ROUTES"])
        values["ROUTES"] = Self.route(#","deviceCheckFallback":true"#)
        values["DEVICECHECK_BUDGET_PER_DEVICE"] = "1001"
        #expect(problems(Self.environment(values)).first?.hasSuffix("DEVICECHECK_BUDGET_PER_DEVICE") == true)
        // Opting in without DeviceCheck configured would silently do nothing: refused.
        #expect(
            problems(Self.environment(["ROUTES": Self.route(#","deviceCheckFallback":true"#)]))
                == ["config.invalid_routes ROUTES"]
        )
    }
}
