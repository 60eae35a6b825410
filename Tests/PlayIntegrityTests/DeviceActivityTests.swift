import AttestCore
import FoundationEssentials
import Testing

@testable import PlayIntegrity

/// `deviceIntegrity.recentDeviceActivity.deviceActivityLevel` against a route's `maxDeviceActivity`.
@Suite struct DeviceActivityTests {
    static let path = ["tokenPayloadExternal", "deviceIntegrity", "recentDeviceActivity"]

    /// The minimal passing fixture with `recentDeviceActivity` set to `value` (nil: absent).
    static func payload(activity value: JSONValue?) throws -> IntegrityPayload {
        try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_pass_minimal.json").setting(path, to: value)
        )
    }

    static func payload(level text: String) throws -> IntegrityPayload {
        try payload(activity: .object(["deviceActivityLevel": .string(text)]))
    }

    static func standard(_ payload: IntegrityPayload, max: DeviceActivityLevel = .routeDefault) -> VerdictResult {
        VerdictPolicies.standard(
            Fixture.configuration,
            expectedRequestHash: Fixture.requestHash,
            maxDeviceActivity: max
        )
        .evaluate(payload, now: Fixture.now)
    }

    @Test(arguments: [
        ("UNEVALUATED", DeviceActivityLevel.unevaluated), ("LEVEL_1", .level1), ("LEVEL_2", .level2),
        ("LEVEL_3", .level3), ("LEVEL_4", .level4),
    ])
    func everyDocumentedLevelIsRead(_ text: String, _ level: DeviceActivityLevel) throws {
        #expect(try Self.payload(level: text).deviceActivity == .level(level))
        #expect(DeviceActivityLevel(verdict: text) == level)
        #expect(level.verdict == text)
    }

    @Test func anAbsentOrNullFieldIsUnevaluated() throws {
        #expect(try Self.payload(activity: nil).deviceActivity == .level(.unevaluated))
        #expect(try Self.payload(activity: .null).deviceActivity == .level(.unevaluated))
        #expect(try Self.payload(activity: .object([:])).deviceActivity == .level(.unevaluated))
        #expect(
            try Self.payload(activity: .object(["deviceActivityLevel": .null])).deviceActivity == .level(.unevaluated)
        )
        #expect(IntegrityPayload().deviceActivity == .level(.unevaluated))
    }

    /// A new level, Google's proto default, a lower-case spelling or a wrong JSON type is never a pass.
    @Test(arguments: [
        JSONValue.object(["deviceActivityLevel": .string("LEVEL_5")]),
        .object(["deviceActivityLevel": .string("DEVICE_ACTIVITY_LEVEL_UNSPECIFIED")]),
        .object(["deviceActivityLevel": .string("level_1")]),
        .object(["deviceActivityLevel": .string("")]),
        .object(["deviceActivityLevel": .int(1)]),
        .object(["deviceActivityLevel": .array([.string("LEVEL_1")])]),
        .string("LEVEL_1"),
        .array([]),
    ])
    func anUnknownValueIsRefused(_ value: JSONValue) throws {
        let payload = try Self.payload(activity: value)
        #expect(payload.deviceActivity == .unrecognized)
        #expect(Self.standard(payload, max: .level4) == .fail(.deviceActivityUnrecognized))
    }

    @Test func theDefaultMaximumRefusesOnlyLevelFour() throws {
        #expect(DeviceActivityLevel.routeDefault == .level3)
        for text in ["UNEVALUATED", "LEVEL_1", "LEVEL_2", "LEVEL_3"] {
            #expect(Self.standard(try Self.payload(level: text)) == .pass, "\(text)")
        }
        #expect(Self.standard(try Self.payload(level: "LEVEL_4")) == .fail(.deviceActivityTooHigh))
        #expect(PlayIntegrityError.Reason.deviceActivityTooHigh.slug == "play.device_activity")
    }

    @Test(arguments: DeviceActivityLevel.allCases.filter { $0 != .unevaluated })
    func aLevelAboveTheRouteMaximumIsRefusedAndUnevaluatedAlwaysPasses(_ max: DeviceActivityLevel) throws {
        let policy = DeviceActivityPolicy(maxLevel: max)
        for level in DeviceActivityLevel.allCases {
            let result = policy.evaluate(try Self.payload(level: level.verdict), now: Fixture.now)
            let expected: VerdictResult = level == .unevaluated || level <= max ? .pass : .fail(.deviceActivityTooHigh)
            #expect(result == expected, "\(level) under \(max)")
        }
    }

    /// The opt-in fixtures carry the field: Google's documentation example (`LEVEL_1`) passes, the risky
    /// one reads `LEVEL_4` (it fails earlier, on its app verdict).
    @Test func theFixturesLevelsAreRead() throws {
        let optIn = try IntegrityPayload(decodeResponse: try Fixture.json("decode_standard_pass_all_optin.json"))
        #expect(optIn.deviceActivity == .level(.level1))
        let risky = try IntegrityPayload(
            decodeResponse: try Fixture.json("decode_standard_tampered_app_risky_env.json")
        )
        #expect(risky.deviceActivity == .level(.level4))
        #expect(
            DeviceActivityPolicy(maxLevel: .level3).evaluate(risky, now: Fixture.now) == .fail(.deviceActivityTooHigh)
        )
    }

    /// The activity check comes after the device label: a device failing both is refused for its label.
    @Test func theDeviceLabelIsCheckedFirst() throws {
        let document = try Fixture.json("decode_standard_pass_minimal.json")
            .setting(Self.path, to: .object(["deviceActivityLevel": .string("LEVEL_4")]))
            .setting(["tokenPayloadExternal", "deviceIntegrity", "deviceRecognitionVerdict"], to: .array([]))
        #expect(Self.standard(try IntegrityPayload(decodeResponse: document)) == .fail(.deviceIntegrityInsufficient))
    }
}
