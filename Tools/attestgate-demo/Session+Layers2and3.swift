internal import AttestCore
internal import AttestGateClient
internal import HTTPClient

/// Layers 2 and 3: the per-device allowance, the provider failing, the environment's daily ceiling.
extension Session {
    /// Layer 2: a genuine device still has a daily allowance per feature.
    func allowance() async throws {
        report.header("Layer 2: the per-device daily allowance")
        let used = try await counters.allowanceUsed(partition: "DEVICE#\(iphone.deviceID)", feature: "generation")
        let left = options.generationAllowance - used
        var served = 0
        for _ in 0..<max(0, left) {
            if servedCards(await iphone.call(Self.generatePath, body: Self.generateBody)) { served += 1 }
        }
        let over = await iphone.call(Self.generatePath, body: Self.generateBody)
        var retryAfter = ""
        var exhausted = false
        if case .quotaExhausted(let seconds, _) = over {
            exhausted = true
            retryAfter = seconds.map { " (Retry-After \(Int($0)) s)" } ?? ""
        }
        report.step(
            "iPhone (genuine)",
            "keeps generating: \(left) more, then one over",
            expected: "\(left)x 200, then 429 quota_exhausted",
            got: "\(served)x 200, then \(describe(over))\(retryAfter)",
            ok: left > 0 && served == left && exhausted
        )
    }

    /// A call the provider never answered was not billed (docs/gate.md), so both units come back.
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
        report.header("Layer 3: the environment's daily ceiling (AI_DAILY_CALL_CEILING=\(options.budget))")
        let left = options.budget - (try await counters.ceilingCalls())
        var served = 0
        for _ in 0..<max(0, left) {
            if case .served(let answer) = await iphone.call(Self.tutorPath, body: Self.tutorBody), answer.status == 200
            {
                served += 1
            }
        }
        let over = await iphone.call(Self.tutorPath, body: Self.tutorBody)
        var exhausted = false
        if case .dailyBudgetExhausted = over { exhausted = true }
        report.step(
            "iPhone (genuine)",
            "asks the tutor: \(left) more, then one over",
            expected: "\(left)x 200, then 503 daily_budget_exhausted",
            got: "\(served)x 200, then \(describe(over))",
            ok: left > 0 && served == left && exhausted
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
}
