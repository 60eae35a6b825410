internal import AttestCore
internal import Crypto
internal import DynamoDB
internal import FoundationEssentials
internal import HTTPClient
internal import SimulatedDevice

/// The scripted session of `make run`: every layer shown once, each step one line (who, what, expected, got).
///
/// The stack it expects (`local-harness/run.py` sets it up): `POST /v1/generate` in **enforce** mode with
/// a small daily allowance, `POST /v1/tutor/{deckId}/{cardId}` in **monitor** mode, request binding on
/// both, `AI_DAILY_CALL_BUDGET` small enough to reach, `PAID_CLAIM=plan=paid`.
final class Session {
    let options: SessionCommand.Options
    let api: GateAPI
    let stack: Stack
    let counters: Counters
    let report = Report()
    let clock = SystemClock()

    var iphone: AppleClient
    var pixel: AndroidClient
    var tampered: AndroidClient
    let minted: [String]
    let paidUser = #"{"sub":"user-paid-0001","plan":"paid"}"#
    let freeUser = #"{"sub":"user-free-0001"}"#

    static let generatePath = "/v1/generate"
    static let tutorPath = "/v1/tutor/deck-biology/card-7"
    static let generateBody = Array(
        #"{"text":"Mitochondria make ATP. ATP is the cell's energy currency. Ribosomes build proteins.","cards":3}"#
            .utf8
    )
    static let tutorBody = Array(#"{"question":"Why is ATP called the energy currency?"}"#.utf8)

    init(options: SessionCommand.Options, environment: [String: String]) throws {
        self.options = options
        api = GateAPI(baseURL: options.front)
        stack = Stack(harnessControl: options.harness, upstreamControl: options.upstream)
        counters = try Counters(environment: environment)
        let device = SimulatedDevice(
            teamId: options.teamID,
            bundleId: options.bundleID,
            environment: .development,
            authority: try SimulatedAppleCA(loadingFrom: options.caDirectory)
        )
        iphone = try AppleClient(deviceID: Self.newDeviceID(), device: device, api: api)
        let google = FakeGoogle(
            baseURL: options.google,
            packageName: options.androidPackage,
            certificateDigest: options.certificateDigest
        )
        pixel = AndroidClient(deviceID: Self.newDeviceID(), api: api, google: google, integrity: .genuine)
        tampered = AndroidClient(deviceID: Self.newDeviceID(), api: api, google: google, integrity: .tampered)
        minted = (0..<6).map { _ in Self.newDeviceID() }
    }

    func play() async throws {
        try await genuineIPhone()
        try await scriptWithMintedIDs()
        try await android()
        try await allowance()
        try await upstreamFailure()
        try await ceiling()
    }

    // MARK: the steps

    /// Layer 1 on iOS: key registration, a bound call, and the same request sent again.
    func genuineIPhone() async throws {
        report.header("Layer 1, iOS: App Attest (generate route, enforce)")
        let registered = try await iphone.registerKey(now: clock.now())
        let binding = (try? JSONValue.parse(registered.body))?["binding"]?.stringValue
        report.step(
            "iPhone (genuine)",
            "registers its App Attest key",
            expected: "200 bound",
            got: "\(registered.status) \(binding ?? registered.errorCode ?? "")",
            ok: registered.status == 200 && binding == "bound"
        )
        let headers = try await iphone.proofHeaders(method: "POST", path: Self.generatePath, body: Self.generateBody)
        let first = try await api.send("POST", Self.generatePath, headers: headers, body: Self.generateBody)
        iphone.remember(first)
        report.step(
            "iPhone (genuine)",
            "generates cards (assertion bound to the call)",
            expected: "200 with cards",
            got: describe(first),
            ok: first.status == 200 && cards(first) > 0
        )
        let replayed = try await api.send("POST", Self.generatePath, headers: headers, body: Self.generateBody)
        report.step(
            "attacker",
            "replays that exact request (same assertion)",
            expected: "403 attestation_required",
            got: describe(replayed),
            ok: replayed.status == 403 && replayed.errorCode == "attestation_required"
        )
    }

    /// seeds/000 section 1: six fresh UUIDs, no proof. Monitor serves and logs; enforce refuses.
    func scriptWithMintedIDs() async throws {
        report.header("Layer 1, a script minting device IDs (tutor: monitor, generate: enforce)")
        var served = 0
        for id in minted {
            let answer = try await api.send(
                "POST",
                Self.tutorPath,
                headers: [HTTPHeader(GateAPI.Header.deviceID, id)],
                body: Self.tutorBody
            )
            if answer.status == 200 { served += 1 }
        }
        let suffixes = Set(minted.map { "…" + $0.suffix(6) })
        var logged = 0
        for _ in 0..<30 {  // the bootstraps' lines reach the harness a moment after the answers
            logged = try await stack.decisionLines().filter {
                $0["decision"]?.stringValue == "would_block" && $0["route"]?.stringValue == "tutor"
                    && suffixes.contains($0["device"]?.stringValue ?? "")
            }.count
            if logged >= minted.count { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        report.step(
            "script",
            "6 minted IDs, no proof, on tutor (monitor)",
            expected: "6x 200, 6 would_block logged",
            got: "\(served)x 200, \(logged) would_block logged",
            ok: served == minted.count && logged == minted.count
        )
        var refused = 0
        for id in minted {
            let answer = try await api.send(
                "POST",
                Self.generatePath,
                headers: [HTTPHeader(GateAPI.Header.deviceID, id)],
                body: Self.generateBody
            )
            if answer.status == 403 && answer.errorCode == "attestation_required" { refused += 1 }
        }
        report.step(
            "script",
            "the same 6 IDs on generate (enforce)",
            expected: "6x 403 attestation_required",
            got: "\(refused)x 403 attestation_required",
            ok: refused == minted.count
        )
    }

    /// Layer 1 on Android: Play Integrity with requestHash = SHA-256(client data).
    func android() async throws {
        report.header("Layer 1, Android: Play Integrity (generate route, enforce)")
        let genuine = try await pixel.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (genuine)",
            "generates cards (token bound to the call)",
            expected: "200 with cards",
            got: describe(genuine),
            ok: genuine.status == 200 && cards(genuine) > 0
        )
        let refused = try await tampered.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (tampered)",
            "re-signed app on a rooted phone",
            expected: "403 attestation_required",
            got: describe(refused),
            ok: refused.status == 403 && refused.errorCode == "attestation_required"
        )
    }

    /// Layer 2: a genuine device still has a daily allowance per feature.
    func allowance() async throws {
        report.header("Layer 2: the per-device daily allowance")
        let used = try await counters.allowanceUsed(partition: "DEVICE#\(iphone.deviceID)", feature: "generation")
        let left = options.generationAllowance - used
        var served = 0
        for _ in 0..<max(0, left) {
            if try await iphone.call(Self.generatePath, body: Self.generateBody).status == 200 { served += 1 }
        }
        let over = try await iphone.call(Self.generatePath, body: Self.generateBody)
        let retryAfter = over.header("Retry-After").map { " (Retry-After \($0) s)" } ?? ""
        report.step(
            "iPhone (genuine)",
            "keeps generating: \(left) more, then one over",
            expected: "\(left)x 200, then 429 quota_exhausted",
            got: "\(served)x 200, then \(describe(over))\(retryAfter)",
            ok: left > 0 && served == left && over.status == 429 && over.errorCode == "quota_exhausted"
        )
    }

    /// seeds/000 section 9: a call the provider never answered was not billed, so both units come back.
    func upstreamFailure() async throws {
        report.header("Layer 3: the AI provider fails, the units come back")
        let partition = "DEVICE#\(pixel.deviceID)"
        let ceilingBefore = try await counters.ceilingCalls()
        let allowanceBefore = try await counters.allowanceUsed(partition: partition, feature: "generation")
        try await stack.failUpstream(status: 503, count: 1)
        let failed = try await pixel.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (genuine)",
            "generates while the provider answers 503",
            expected: "502 upstream_unavailable",
            got: describe(failed),
            ok: failed.status == 502 && failed.errorCode == "upstream_unavailable"
        )
        let ceilingAfter = try await counters.ceilingCalls()
        let allowanceAfter = try await counters.allowanceUsed(partition: partition, feature: "generation")
        report.step(
            "DynamoDB",
            "ceiling calls, Pixel's allowance: before -> after",
            expected: "\(ceilingBefore) -> \(ceilingBefore), \(allowanceBefore) -> \(allowanceBefore)",
            got: "\(ceilingBefore) -> \(ceilingAfter), \(allowanceBefore) -> \(allowanceAfter)",
            ok: ceilingAfter == ceilingBefore && allowanceAfter == allowanceBefore
        )
        let recovered = try await pixel.call(Self.generatePath, body: Self.generateBody, now: clock.now())
        report.step(
            "Pixel (genuine)",
            "tries again once the provider is back",
            expected: "200 with cards",
            got: describe(recovered),
            ok: recovered.status == 200 && cards(recovered) > 0
        )
    }

    /// Layer 3: the environment's daily ceiling on unpaid calls; paying users are not metered by it.
    func ceiling() async throws {
        report.header("Layer 3: the environment's daily ceiling (AI_DAILY_CALL_BUDGET=\(options.budget))")
        let left = options.budget - (try await counters.ceilingCalls())
        var served = 0
        for _ in 0..<max(0, left) {
            if try await iphone.call(Self.tutorPath, body: Self.tutorBody).status == 200 { served += 1 }
        }
        let over = try await iphone.call(Self.tutorPath, body: Self.tutorBody)
        report.step(
            "iPhone (genuine)",
            "asks the tutor: \(left) more, then one over",
            expected: "\(left)x 200, then 503 daily_budget_exhausted",
            got: "\(served)x 200, then \(describe(over))",
            ok: left > 0 && served == left && over.status == 503 && over.errorCode == "daily_budget_exhausted"
        )
        let counted = try await counters.ceilingCalls()
        let warnings = try await stack.decisionLines().filter { $0["budget_warning"] != nil }.count
        report.step(
            "DynamoDB + logs",
            "ceiling row; 80% warning lines",
            expected: "\(options.budget) calls, 1 warning",
            got: "\(counted) calls, \(warnings) warning\(warnings == 1 ? "" : "s")",
            ok: counted == options.budget && warnings == 1
        )
        let paid = try await api.send(
            "POST",
            Self.generatePath,
            headers: [HTTPHeader("X-Harness-JWT-Claims", paidUser)],
            body: Self.generateBody
        )
        report.step(
            "paying user",
            "generates (JWT plan=paid) with the ceiling spent",
            expected: "200 with cards",
            got: describe(paid),
            ok: paid.status == 200 && cards(paid) > 0
        )
        let free = try await api.send(
            "POST",
            Self.generatePath,
            headers: [HTTPHeader("X-Harness-JWT-Claims", freeUser)],
            body: Self.generateBody
        )
        report.step(
            "signed-in free user",
            "generates (JWT, no plan) with the ceiling spent",
            expected: "503 daily_budget_exhausted",
            got: describe(free),
            ok: free.status == 503 && free.errorCode == "daily_budget_exhausted"
        )
    }

    /// The rows behind the session, read back from DynamoDB.
    func printCounters() async throws {
        print("\n== Counters read back from DynamoDB (\(counters.table.name), day \(Counters.today()))")
        let ceiling = try await counters.ceilingCalls()
        print("  AI_BUDGET#\(Counters.today()) / TOTAL           calls = \(ceiling) of \(options.budget)")
        let rows: [(String, String)] = [
            ("iPhone (genuine)", "DEVICE#\(iphone.deviceID)"), ("Pixel (genuine)", "DEVICE#\(pixel.deviceID)"),
            ("Pixel (tampered)", "DEVICE#\(tampered.deviceID)"), ("paying user", "USER#user-paid-0001"),
            ("signed-in free user", "USER#user-free-0001"),
        ]
        for (who, partition) in rows {
            let generation = try await counters.allowanceUsed(partition: partition, feature: "generation")
            let tutor = try await counters.allowanceUsed(partition: partition, feature: "tutor")
            print("  \(report.pad(who, 20)) \(report.pad(partition, 48)) generation \(generation), tutor \(tutor)")
        }
        var mintedTutor = 0
        var mintedGeneration = 0
        for id in minted {
            mintedTutor += try await counters.allowanceUsed(partition: "DEVICE#\(id)", feature: "tutor")
            mintedGeneration += try await counters.allowanceUsed(partition: "DEVICE#\(id)", feature: "generation")
        }
        print(
            "  \(report.pad("6 minted IDs", 20)) \(report.pad("DEVICE#<each>", 48)) generation \(mintedGeneration), tutor \(mintedTutor) (all six)"
        )
    }

    // MARK: helpers

    /// A random (version 4) UUID, as an app makes once per install.
    static func newDeviceID() -> String {
        var bytes = SecureRandom().bytes(16)
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        let hex = Bytes.hex(bytes)
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex.dropFirst(range.lowerBound).prefix(range.count))
        }
        return parts.joined(separator: "-")
    }

    func cards(_ response: HTTPResponse) -> Int {
        (try? JSONValue.parse(response.body))?["cards"]?.arrayValue?.count ?? 0
    }

    /// `200, 3 cards, 2 left today` or `403 attestation_required`.
    func describe(_ response: HTTPResponse) -> String {
        if response.status == 200 {
            let left = response.header(GateAPI.Header.quotaRemaining).map { ", \($0) left today" } ?? ""
            let count = cards(response)
            return count > 0 ? "200, \(count) cards\(left)" : "200\(left)"
        }
        return "\(response.status) \(response.errorCode ?? response.text)"
    }
}
