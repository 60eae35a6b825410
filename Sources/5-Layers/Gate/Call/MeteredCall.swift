internal import AWSJSON
package import AttestCore
internal import Dialects
package import FoundationEssentials
internal import WireContract

/// A metered call end to end: gate (layer 1) → allowance (layer 2) → ceiling (layer 3) → upstream.
///
/// Each layer assumes the others can fail. A refusal by a later layer never refunds an earlier unit
/// (docs/gate.md, "One metered call"); only a call the provider provably did not bill gives both units back
/// (`ReleasePolicy`: never sent, or a documented refusal status).
package struct MeteredCall: Sendable {
    package var environment: String
    package var evidence: any EvidenceSource
    package var profiles: any ProfileStore
    package var challenges: any ChallengeStore
    package var allowances: AllowanceMeter
    package var ceilingGuard: CeilingGuard
    package var upstream: any UpstreamCalling
    /// Kept back from the invocation's remaining time for our own answer.
    package var deadlineMargin: Duration = .milliseconds(300)
    /// Which platforms meter device IDs by tier (docs/gate.md "Device tiers"); off: every device ID without
    /// a stored tier is `first`.
    package var tiering = DeviceTiering()
    /// Android's tier step from the verdict's device recall bits (`PLAY_DEVICE_RECALL=on`; nil: off).
    package var recallTiering: PlayRecallTiering?
    /// Renews a `first` whose DeviceCheck mark has expired when the call carries a DeviceCheck token
    /// (`DEVICE_MARKS=on`; nil: an expired `first` is metered as `unknown`).
    package var markRenewal: MarkRenewal?
    /// Debug tokens as layer-1 proof (`DEBUG_TOKENS=on`; nil: `X-Debug-Token` is ignored).
    package var debugTokens: DebugTokenCheck?

    package init(
        environment: String,
        evidence: any EvidenceSource,
        profiles: any ProfileStore,
        challenges: any ChallengeStore,
        allowances: AllowanceMeter,
        ceilingGuard: CeilingGuard,
        upstream: any UpstreamCalling
    ) {
        self.environment = environment
        self.evidence = evidence
        self.profiles = profiles
        self.challenges = challenges
        self.allowances = allowances
        self.ceilingGuard = ceilingGuard
        self.upstream = upstream
    }

    /// Handles one metered call and writes its decision line.
    /// - Parameter deadline: the invocation's deadline; every store request and the upstream call end
    ///   before it (the upstream gets what is left minus `deadlineMargin`).
    package func handle(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: Deadline,
        logger: Logger
    ) async -> GateResponse {
        var record = DecisionRecord(environment: environment, route: route.feature, mode: route.mode)
        let tally = RequestTally()
        let contention = ContentionTally()
        let response = await RequestTally.$current.withValue(tally) {
            await ContentionTally.$current.withValue(contention) {
                await Deadline.$current.withValue(deadline) {
                    await run(request, route: route, now: now, deadline: deadline, logger: logger, record: &record)
                }
            }
        }
        // The store cost of this call (a genuine iOS call: at most 6 requests, 4 one after another; docs/gate.md).
        record.ddbRequests = Int64(tally.requests)
        record.ddbSequential = Int64(tally.sequential)
        record.ddbWaitMicros = tally.waitedMicros
        // Writes DynamoDB refused for contention and this call tried again (docs/dynamodb.md, "Contention").
        if contention.count > 0 { record.storeRetries = Int64(contention.count) }
        record.status = Int64(response.status)
        record.emit(to: logger, timestampMillis: Int64((now.timeIntervalSince1970 * 1000).rounded(.down)))
        return response
    }

    private func run(
        _ request: MeteredRequest,
        route: MeteredRoute,
        now: Date,
        deadline: Deadline,
        logger: Logger,
        record: inout DecisionRecord
    ) async -> GateResponse {
        // A bounded worst case starts with a bounded request: refused before any challenge or row.
        guard request.body.count <= route.maxRequestBytes else {
            record.decision = "request_too_large"
            return .refused(.requestTooLarge, headers: ["cache-control": "no-store"])
        }
        // A template route renders the provider request from the client's variables (nothing else is read).
        var body = request.body
        if let template = route.template {
            switch template.render(body) {
            case .success(let rendered): body = rendered
            case .failure(let refusal):
                record.decision = "invalid_request"
                record.reason = refusal.reason.slug
                return .refused(.invalidRequest, headers: ["cache-control": "no-store"])
            }
        }
        // A known dialect's body is checked and capped before anything is spent.
        let bound: CallBound
        switch CallBound.prepare(body, route: route) {
        case .success(let prepared): bound = prepared
        case .failure(let refusal):
            record.decision = "invalid_request"
            record.reason = refusal.reason.slug
            return .refused(.invalidRequest, headers: ["cache-control": "no-store"])
        }
        if let model = bound.model { record.model = route.models?.contains(model) == true ? model : "other" }
        var subject: Subject
        var report = EvidenceReport(evidence: .absent)
        var gated = false
        if let sub = request.userSub {
            subject = .user(sub)
        } else {
            guard let deviceID = DeviceID.canonical(request.header(WireHeader.deviceID.key)) else {
                record.decision = "invalid_device_id"
                return .refused(.invalidDeviceID)
            }
            subject = .device(deviceID)
            if route.mode != .off {
                gated = true
                if let debugTokens, let text = request.header(WireHeader.debugToken.key) {
                    // A debug token is the whole proof, and the call is metered as the token (`Subject.debugToken`).
                    let (evidence, name) = await debugTokens.evaluate(text, feature: route.feature, now: now)
                    report = EvidenceReport(evidence: evidence)
                    if let name {
                        subject = .debugToken(name)
                        record.count("debug_token")
                    }
                } else {
                    report = await evidence.evaluate(request: request, deviceID: deviceID, route: route, now: now)
                }
            }
        }
        record.device = subject.logSuffix
        record.proof = report.evidence.proof.rawValue
        record.outcome = gated ? report.evidence.label : "not_checked"
        if gated, let reason = report.evidence.reason { record.reason = reason }

        let call = CallContext(
            request: request,
            route: route,
            bound: bound,
            subject: subject,
            report: report,
            gated: gated,
            now: now,
            deadline: deadline,
            logger: logger
        )
        func answer(_ record: inout DecisionRecord) async -> GateResponse {
            await laterLayers(call, record: &record)
        }
        guard gated, case .device(let deviceID) = subject else {
            // No challenge to issue (a user, or a route that does not gate): no child task on the call's path.
            return Self.withChallenge(await answer(&record), nil)
        }
        // The next challenge is written while the later layers run; it never delays the answer's path.
        let spent = report.spentChallenge
        async let next = nextChallenge(for: deviceID, spent: spent, now: now, logger: logger)
        let response = await answer(&record)
        var issued = await next
        if spent, response.status >= 400, issued != nil {
            // A refused call's replacement counts against the device's daily issue bound like any issue:
            // past it the client gets no next challenge, so a spend-and-refuse loop ends
            // (docs/gate.md, "Rows and writes").
            do {
                try await challenges.countReplacement(deviceID: deviceID, now: now)
            } catch {
                logger.warning("next challenge withheld", ["reason": .string(Self.slug(error))])
                issued = nil
            }
        }
        return Self.withChallenge(response, issued)
    }

    /// The tier a device ID's call is metered by (`DeviceTierPolicy.forCall`; `onUnknownDevice` is the route's
    /// `allowance(for:)`), logged as `tier` with `tierReason`: the stored row's reason, the reason of a tier
    /// this call's evaluation wrote, or why a tier was inferred (`tier.off`, `tier.legacy_key`, `tier.unproven`,
    /// `tier.mark_expired`).
    /// - Throws: `StoreError` from a tier write on the way (the caller fails closed).
    func deviceTier(
        _ request: MeteredRequest,
        profile: DeviceProfile,
        report: EvidenceReport,
        deviceID: String,
        today: String,
        now: Date,
        record: inout DecisionRecord
    ) async throws -> DeviceTier {
        var stored = profile.tier
        var reason = profile.tierReason
        if let recorded = report.recordedTier {
            stored = recorded.tier
            reason = recorded.reason
        }
        // Android: a genuine Play verdict settles an absent or `unknown` tier from its recall bit (a settled
        // tier is left alone: no request).
        if tiering.recall, let evidence = report.playRecall, let recallTiering,
            let settled = try await recallTiering.settle(
                deviceID: deviceID,
                stored: stored,
                evidence: evidence,
                today: today,
                now: now
            )
        {
            stored = settled.tier
            reason = settled.reason
            if settled.unavailable { record.count("unavailable") }
        }
        // A `first` expires with the mark that made it (docs/gate.md "Device tiers"): read from the row already
        // read, so a call whose `first` holds costs nothing. A DeviceCheck token on the call renews it (the mark
        // decides again); without one, or with Apple unavailable, it is metered as `unknown`.
        if tiering.marks, report.recordedTier == nil, stored == .first,
            DeviceTierPolicy.firstExpired(profile, now: now, markMonths: tiering.markMonths)
        {
            // The token is bounded as the registration's body field is before Apple is asked.
            let token = request.header(WireHeader.deviceCheckToken.key)
            if let markRenewal, let token, KeyRegistration.deviceCheckToken(.string(token)) == .valid(token),
                let renewed = try await markRenewal.renew(deviceID: deviceID, deviceCheckToken: token, now: now)
            {
                stored = renewed.tier
                reason = renewed.reason
            } else {
                stored = .unknown
                reason = GateReason.tierMarkExpired.slug
            }
        }
        let on = tiering.on(attestedKey: report.attestedKey, proof: report.evidence.proof)
        let tier = DeviceTierPolicy.forCall(stored: stored, tiering: on, attestedKey: report.attestedKey)
        if stored == nil {
            reason =
                (!on ? GateReason.tierOff : report.attestedKey ? GateReason.tierLegacyKey : GateReason.tierUnproven)
                .slug
        }
        record.tier = tier.rawValue
        if let reason { record.tierReason = reason }
        return tier
    }

    /// Reads the answer's usage and settles the money reservation to it (once; missing usage keeps it).
    func settle(
        _ ceiling: CeilingReservation?,
        bound: CallBound,
        route: MeteredRoute,
        answer: [UInt8],
        record: inout DecisionRecord,
        logger: Logger
    ) async {
        guard route.dialect.isKnown else { return }
        await Self.settle(
            bound.usage(in: answer, dialect: route.dialect),
            ceiling: ceiling,
            bound: bound,
            dialect: route.dialect,
            ceilingGuard: ceilingGuard,
            record: &record,
            logger: logger
        )
    }

    /// Settles `ceiling` to `usage` priced by class, and writes what happened on `record`: the usage read or
    /// missing, its tokens, its cost, a class nobody prices (the whole reservation then stays), a cost above the
    /// reservation. For a buffered answer and for a stream's end alike.
    static func settle(
        _ usage: Usage?,
        ceiling: CeilingReservation?,
        bound: CallBound,
        dialect: Dialect,
        ceilingGuard: CeilingGuard,
        record: inout DecisionRecord,
        logger: Logger
    ) async {
        guard let usage else {
            // No usage (a cut stream's, a provider's that sent none): the reservation stays whole.
            record.usage = "missing"
            return
        }
        record.usage = "read"
        record.inputTokens = Int64(usage.inputTokens)
        record.outputTokens = Int64(usage.outputTokens)
        guard let ceiling, ceilingGuard.dailyCostLimitMicros > 0, let priced = bound.cost(of: usage, dialect: dialect)
        else { return }
        guard case .cost(let cost) = priced else {
            // A class of tokens nobody prices: the whole reservation stays, and the line says which class.
            if case .unpriced(let kind) = priced { record.usageUnpriced = kind.rawValue }
            return
        }
        record.costMicros = cost
        do {
            if case .exceeded = try await ceilingGuard.settle(ceiling, costMicros: cost) {
                // Under a declared maxInputTokens (media) the cap holds only as far as the declaration does;
                // elsewhere only a price below the provider's gets here.
                record.costOverReservation = true
                logger.warning(
                    "call cost more than its reservation",
                    ["costMicros": .int(cost), "reservedMicros": .int(ceiling.costMicros)]
                )
            }
        } catch {
            logger.error("ceiling settle failed", ["reason": .string(slug(error))])
        }
    }

    /// The provider's `Content-Type` when it is a header value the client can be given as is: visible ASCII
    /// with inner blanks, at most 256 bytes. Anything else (a bare CR, a control byte, non-ASCII) is dropped,
    /// so a provider cannot write a line of its own into the client's response head.
    static func passedOn(_ contentType: String?) -> String? {
        guard let contentType, !contentType.isEmpty, contentType.utf8.count <= 256,
            contentType.utf8.allSatisfy({ (0x20...0x7e).contains($0) || $0 == 0x09 })
        else { return nil }
        return contentType
    }

    /// Below this the upstream is not called (a call that cannot finish would only spend the provider).
    static let minimumUpstreamTime: Duration = .milliseconds(100)

    /// Gives both units back after a call the provider provably did not bill (the route's release policy).
    func release(allowance: AllowanceReservation, ceiling: CeilingReservation?, logger: Logger) async {
        async let allowanceReleased: Void = allowances.store.release(allowance)
        async let ceilingReleased: Void = { if let ceiling { try await ceilingGuard.release(ceiling) } }()
        do { try await allowanceReleased } catch {
            logger.error("allowance release failed", ["reason": .string(Self.slug(error))])
        }
        do { try await ceilingReleased } catch {
            logger.error("ceiling release failed", ["reason": .string(Self.slug(error))])
        }
    }

    private func nextChallenge(
        for deviceID: String,
        spent: Bool,
        now: Date,
        logger: Logger
    ) async -> IssuedChallenge? {
        do {
            return try await challenges.issue(deviceID: deviceID, replacingSpent: spent, now: now)
        } catch {
            logger.warning("next challenge not issued", ["reason": .string(Self.slug(error))])
            return nil
        }
    }

    private static func withChallenge(
        _ response: GateResponse,
        _ challenge: IssuedChallenge?
    ) -> GateResponse {
        var response = response
        response.headers["cache-control"] = "no-store"
        if let challenge {
            response.headers[WireHeader.nextChallenge.key] = Bytes.base64(challenge.bytes)
            response.headers[WireHeader.nextChallengeExpires.key] = String(challenge.expiresAt)
        }
        return response
    }

    static func slug(_ error: any Error) -> String {
        switch error {
        case let error as StoreError: error.reason
        case is ChallengeIssueError: GateReason.challengeIssueBound.slug
        default: GateReason.storeUnexpected.slug
        }
    }
}
