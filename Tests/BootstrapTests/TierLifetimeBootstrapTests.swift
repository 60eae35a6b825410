import AWSJSON
import AttestCore
import Crypto
import DynamoDB
import FoundationEssentials
import HTTPClient
import SimulatedDevice
import TestSupport
import Testing
import WireContract

/// Tier lifetimes through the real `bootstrap` with `DEVICE_MARKS=on` against `local-harness/fake_apple.py` and moto:
/// the installed base keeps its allowance when marks are turned on, and a `first` expires with its mark.
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

    /// Writes `install`'s `PROFILE` row as a registration `months` months ago left it: `first` by a mark of
    /// that month, and the same month on Apple's bits for its phone.
    static func age(_ rig: Rig, _ install: Install, months: Int) async throws {
        let month = LocalMonth.now().minus(months)
        let client = DynamoDBClient(
            configuration: DynamoDBClient.configuration(
                try AWSEnvironment([
                    "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                    "DYNAMODB_ENDPOINT": BootstrapTests.dynamoDBEndpoint ?? "",
                ])
            ),
            transport: CurlTransport(),
            random: SecureRandom()
        )
        try await client.putItem(
            PutItem(
                table: Table(name: BootstrapTests.table),
                item: [
                    "PK": .s("DEVICE#\(install.deviceID)"), "SK": .s("PROFILE"), "tier": .s("first"),
                    "tier_reason": .s("mark.clear"), "first_seen": .s(month + "-01"), "tier_marked": .s(month),
                ]
            ),
            deadline: .after(.seconds(10))
        )
        try await rig.apple.setBits(
            device: install.phone.physicalID,
            bit0: true,
            bit1: false,
            month: month,
            transport: rig.transport
        )
    }

    /// A key registered while marks were off has no tier. Turned on, marks must not demote it: its
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

    /// A `first` expires with the mark that made it (DEVICE_MARK_MONTHS 3, a mark 4 months old).
    /// Another device ID on the same phone then claims the mark; the old ID's `first` must not still count,
    /// or one phone holds one more `first` per window. The old `first` is metered as `unknown`
    /// (`tier.mark_expired`, the route's `onUnknownDevice`), with or without a DeviceCheck token: the mark in
    /// force is the new ID's. A genuine phone keeping its one device ID renews its `first` with its token.
    /// Before the fix every expired `first` got the route's allowance.
    @Test func aFirstOlderThanTheMarkMonthsExpiresWithItsMark() async throws {
        let rig = try await Rig(extra: ["DEVICE_MARK_MONTHS": "3"])
        // A phone whose first device ID was marked 4 months ago, and a new device ID on it now.
        let farmed = rig.phone()
        var old = try Install(on: farmed)
        #expect(try await rig.register(old) == "bound")
        try await Self.age(rig, old, months: 4)
        #expect(try await rig.call(&old).status == 429)
        var new = try Install(on: farmed)
        _ = try await rig.register(new)
        _ = try await rig.harness.eventually(seconds: 5) { try await rig.registeredTiers().count == 2 }
        #expect(try await rig.registeredTiers() == ["first", "first"])
        #expect(try await rig.call(&new).status == 200)
        // The old ID with its token: the mark is the new ID's, in force: still unknown (repeatAllowance 0).
        #expect(try await rig.call(&old, deviceCheckToken: true).status == 429)
        // Only a route that opts unknown devices in serves it (`onUnknownDevice: first`).
        #expect(try await rig.call(&old, path: "/v1/tutor/deck-1/card-2").status == 200)

        // A genuine phone keeping its device ID: its token renews the first and the mark.
        let kept = rig.phone()
        var genuine = try Install(on: kept)
        _ = try await rig.register(genuine)
        try await Self.age(rig, genuine, months: 4)
        #expect(try await rig.call(&genuine, path: "/v1/tutor/deck-1/card-2").status == 200)
        #expect(try await rig.call(&genuine, deviceCheckToken: true).status == 200)
        #expect(try await rig.call(&genuine).status == 200)
        let bits = try await rig.apple.bits(device: kept.physicalID, transport: rig.transport)
        #expect(bits["bit0"] == .bool(true) && bits["last_update_time"] == .string(LocalMonth.now().minus(0)))

        let lines = try await Self.decisions(rig, count: 7)
        let tiers = lines.map { [$0["tier"]?.stringValue ?? "-", $0["tierReason"]?.stringValue ?? "-"] }
        #expect(
            tiers == [
                ["unknown", "tier.mark_expired"], ["first", "mark.clear"], ["unknown", "tier.mark_expired"],
                ["unknown", "tier.mark_expired"], ["unknown", "tier.mark_expired"], ["first", "mark.renewed"],
                ["first", "mark.renewed"],
            ],
            "\(tiers)"
        )
    }
}
