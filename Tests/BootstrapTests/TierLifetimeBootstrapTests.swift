import AttestCore
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// Issue 35 through the real `bootstrap` with `DEVICE_MARKS=on` against `local-harness/fake_apple.py` and moto:
/// the installed base keeps its allowance when marks are turned on.
@Suite(.serialized, .enabled(if: bootstrapDynamoDBEndpoint != nil, "needs DYNAMODB_ENDPOINT (make test starts moto)"))
struct TierLifetimeBootstrapTests {
    typealias Rig = DeviceMarksBootstrapTests.Rig
    typealias Install = DeviceMarksBootstrapTests.Install

    /// The decision lines of the metered calls so far, waiting up to 5 s for the `count`th.
    static func decisions(_ rig: Rig, count: Int) async throws -> [JSONValue] {
        var found: [JSONValue] = []
        _ = try await rig.harness.eventually(seconds: 5) {
            found = try await rig.lines().filter {
                $0["logger"] == .string("attestgate.decision") && $0["route"] != .string("attest_keys")
            }
            return found.count >= count
        }
        return found
    }

    /// Issue 35: a key registered while marks were off has no tier. Turned on, marks must not demote it: its
    /// calls get the route's `allowance` (`first`, `tier.legacy_key`) and its first due risk refresh records
    /// the tier on its row. Before the fix it was `unknown`, metered by `onUnknownDevice` (`repeat`, 0 calls).
    @Test func turningMarksOnKeepsTheInstalledBaseOnItsAllowanceAndSettlesItsTier() async throws {
        let rig = try await Rig(extra: ["DEVICE_MARKS": "off"])
        var install = try Install(on: rig.phone())
        #expect(try await rig.register(install) == "bound")
        #expect(try await rig.call(&install).status == 200)

        try await rig.restart(["DEVICE_MARKS": "on"])
        let after = try await rig.call(&install)
        #expect(after.status == 200, "\(after.status) \(String(decoding: after.body, as: UTF8.self))")
        #expect(try await rig.call(&install).status == 200)
        // The route's allowance is 3 a day: the legacy key has all of it.
        #expect(try await rig.call(&install).status == 429)
        let lines = try await Self.decisions(rig, count: 3)
        #expect(lines.map { $0["tier"] } == Array(repeating: .string("first"), count: 3))
        #expect(lines.first?["tierReason"] == .string("tier.legacy_key"))
        // The refresh exchanged its receipt once and recorded its tier.
        let settled = try await rig.lines().contains {
            $0["message"] == .string("legacy key tier settled by a verified receipt") && $0["tier"] == .string("first")
        }
        #expect(settled)
        #expect(try await rig.appleStats()["exchange_requests"] == .int(1))
    }
}
