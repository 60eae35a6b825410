internal import AttestCore
internal import AttestGateClient
internal import HTTPClient
internal import SimulatedDevice

/// One free tier per physical device (docs/gate.md "Device tiers"), with `DEVICE_MARKS=on` against
/// fake Apple's DeviceCheck two bits. The generate route keeps the default `repeatAllowance` (none).
extension Session {
    /// One iPhone, the app installed six times (six device IDs, six App Attest keys, all genuine): one free
    /// tier; then the first install reinstalled keeps its device ID and its tier.
    func onePhoneManyIDs() async throws {
        report.header("Device tiers: one iPhone minting six device IDs (DEVICE_MARKS=on, generate)")
        let appleBefore = try await appleStats()
        var bound = 0
        for install in installs {
            if await install.registerKey() == .registered(binding: "bound") { bound += 1 }
        }
        report.step(
            "iPhone (one phone)",
            "6 installs register 6 keys, each with a DeviceCheck token",
            expected: "6x 200 bound (the tier is never told)",
            got: "\(bound)x 200 bound",
            ok: bound == installs.count
        )
        var answers: [Outcome] = []
        for install in installs { answers.append(await install.call(Self.generatePath, body: Self.generateBody)) }
        let served = answers.filter { servedCards($0) }.count
        let refused = answers.filter {
            if case .quotaExhausted = $0 { return true }
            return false
        }.count
        let firstServed = answers.first.map { servedCards($0) } ?? false
        report.step(
            "iPhone (one phone)",
            "each of the 6 device IDs generates once",
            expected: "1x 200 (the first ID), 5x 429 quota_exhausted",
            got:
                "\(served)x 200\(firstServed ? " (the first ID)" : ""), \(refused)x 429 quota_exhausted",
            ok: served == 1 && firstServed && refused == installs.count - 1
        )
        var tiers: [String] = []
        for install in installs { tiers.append(try await counters.tier(deviceID: install.deviceID) ?? "none") }
        let appleAfter = try await appleStats()
        let queries = appleAfter.queries - appleBefore.queries
        let updates = appleAfter.updates - appleBefore.updates
        report.step(
            "DynamoDB + Apple",
            "the 6 PROFILE rows' tiers; DeviceCheck requests",
            expected: "1 first, 5 repeat; 6 queries, 1 update (bit 0)",
            got: "\(tiers.filter { $0 == "first" }.count) first, \(tiers.filter { $0 == "repeat" }.count) repeat; "
                + "\(queries) queries, \(updates) update\(updates == 1 ? "" : "s")",
            ok: tiers.first == "first" && tiers.dropFirst().allSatisfy { $0 == "repeat" } && queries == installs.count
                && updates == 1
        )
        let lines = try await decisionTiers(of: installs.map(\.deviceID))
        report.step(
            "logs",
            "the decision lines' tier and tierReason",
            expected: "first/mark.clear, 5x repeat/mark.set",
            got: lines.joined(separator: ", "),
            ok: lines.first == "first/mark.clear" && lines.count == installs.count
                && lines.dropFirst().allSatisfy { $0 == "repeat/mark.set" }
        )

        // A reinstall: App Attest keys do not survive it, the device ID in the Keychain does. The library
        // finds its stored key invalid on the next call, makes and registers a new one, and serves the call.
        await installs[0].reinstall()
        let again = await installs[0].call(Self.generatePath, body: Self.generateBody)
        let binding = installs[0].events.lastBinding
        let kept = try await counters.tier(deviceID: installs[0].deviceID)
        report.step(
            "iPhone (one phone)",
            "reinstalls the first ID's app: new key, same device ID",
            expected: "invalidKey, 200 rebound, then 200 with cards (first kept)",
            got: "\(binding.map { "200 \($0)" } ?? "no registration"), then \(describe(again))",
            ok: binding == "rebound" && servedCards(again) && kept == "first"
        )
    }

    /// A phone Apple's fraud-risk metric counts 12 App Attest keys on in 30 days (above `RISK_METRIC_MAX`,
    /// 5): its first device ID registers genuinely, is `repeat` (flagged), and bit 1 is set at Apple.
    func flaggedPhone() async throws {
        report.header("Device tiers: a phone the fraud-risk metric flags (receipt exchange at registration)")
        let physical = flagged.device.physicalID
        try await appleControl("/control/metric", ["device": .string(physical), "metric": .int(12)])
        let registered = await flagged.registerKey()
        let answer = await flagged.call(Self.generatePath, body: Self.generateBody)
        var refused = false
        if case .quotaExhausted = answer { refused = true }
        let tier = try await counters.tier(deviceID: flagged.deviceID)
        let bits = try await appleBits(physical)
        report.step(
            "iPhone (flagged)",
            "registers its first device ID (Apple's metric: 12 keys), then generates",
            expected: "200 bound, then 429 quota_exhausted; tier repeat, bit 1 set",
            got: "\(describe(registered)), then \(describe(answer)); tier \(tier ?? "none"), "
                + "bit 1 \(bits?["bit1"]?.boolValue == true ? "set" : "clear")",
            ok: registered == .registered(binding: "bound") && refused && tier == "repeat"
                && bits?["bit1"]?.boolValue == true
        )
        let lines = try await decisionTiers(of: [flagged.deviceID])
        report.step(
            "logs",
            "the decision line's tier and tierReason",
            expected: "repeat/risk.flagged",
            got: lines.joined(separator: ", "),
            ok: lines == ["repeat/risk.flagged"]
        )
    }

    /// A POST to fake Apple's control API.
    func appleControl(_ path: String, _ body: [String: JSONValue]) async throws {
        let response = try await CurlTransport().send(
            HTTPRequest(
                method: "POST",
                url: options.apple + path,
                headers: [HTTPHeader("content-type", "application/json")],
                body: JSONValue.object(body).serializedBytes
            )
        )
        guard response.status == 200 else { throw DemoError("fake Apple \(path) answered \(response.status)") }
    }

    /// The two bits fake Apple keeps for a physical device (nil when none were ever set).
    func appleBits(_ physicalID: String) async throws -> JSONValue? {
        let response = try await CurlTransport().send(
            HTTPRequest(method: "GET", url: options.apple + "/control/bits?device=" + physicalID)
        )
        let bits = try JSONValue.parse(response.body)
        return bits == .null ? nil : bits
    }

    /// fake Apple's DeviceCheck request counts.
    func appleStats() async throws -> (queries: Int, updates: Int) {
        let response = try await CurlTransport().send(HTTPRequest(method: "GET", url: options.apple + "/control/stats"))
        let stats = try JSONValue.parse(response.body)
        return (Int(stats["query_requests"]?.intValue ?? -1), Int(stats["update_requests"]?.intValue ?? -1))
    }

    /// `tier/tierReason` of each device ID's first generate decision line, in order.
    func decisionTiers(of deviceIDs: [String]) async throws -> [String] {
        var lines: [JSONValue] = []
        for _ in 0..<30 {  // the bootstraps' lines reach the harness a moment after the answers
            lines = try await stack.decisionLines().filter { $0["route"]?.stringValue == "generation" }
            let seen = Set(lines.compactMap { $0["device"]?.stringValue })
            if deviceIDs.allSatisfy({ seen.contains("…" + $0.suffix(6)) }) { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        return deviceIDs.map { id in
            let line = lines.first { $0["device"]?.stringValue == "…" + id.suffix(6) }
            return "\(line?["tier"]?.stringValue ?? "none")/\(line?["tierReason"]?.stringValue ?? "none")"
        }
    }
}
