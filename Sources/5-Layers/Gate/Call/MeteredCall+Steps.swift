internal import AttestCore
internal import FoundationEssentials
internal import WireContract

/// One metered call's inputs as the steps after layer 1 use them (docs/gate.md, "One metered call").
struct CallContext {
    let request: MeteredRequest
    let route: MeteredRoute
    let bound: CallBound
    let subject: Subject
    let report: EvidenceReport
    /// Layer 1 ran (a guest on a route that is not `off`).
    let gated: Bool
    let now: Date
    let deadline: Deadline
    let logger: Logger
}

/// What a step hands the next one, or the answer that ends the call there.
enum Step<Value> {
    case next(Value)
    case answer(GateResponse)
}

extension MeteredCall {
    /// The steps after layer 1, in the order they run, each writing its part of the decision line:
    /// decide on the evidence, meter the allowance (layer 2), reserve the ceilings (layer 3), call the
    /// provider, then release, settle or stream. The answer comes without its next challenge (`run` adds it).
    func laterLayers(_ call: CallContext, record: inout DecisionRecord) async -> GateResponse {
        let decision = decide(call, record: &record)
        guard decision.admit else { return .refused(.attestationRequired) }
        let allowance: AllowanceReservation
        switch await meterAllowance(call, pooled: decision.pooled, record: &record) {
        case .next(let reserved): allowance = reserved
        case .answer(let answer): return answer
        }
        let quotaHeader = [WireHeader.quotaRemaining.key: String(allowance.remaining)]
        let ceiling: CeilingReservation?
        switch await reserveCeiling(call, pooled: decision.pooled, quotaHeader: quotaHeader, record: &record) {
        case .next(let reserved): ceiling = reserved
        case .answer(let answer): return answer
        }
        let result = await callProvider(call)
        return await finish(call, result: result, allowance: allowance, ceiling: ceiling, record: &record)
    }

    /// The gate's decision on layer 1's evidence (`GateDecision`), and its metrics.
    func decide(_ call: CallContext, record: inout DecisionRecord) -> GateDecision {
        let decision =
            call.gated
            ? GateDecision.decide(
                mode: call.route.mode,
                evidence: call.report.evidence,
                onUnavailable: call.route.onUnavailable,
                unprovenPool: call.route.unproven != nil && ceilingGuard.unproven != nil
            )
            : GateDecision(admit: true, label: "skipped", metrics: [:])
        for (name, count) in decision.metrics { record.count(name, count) }
        if call.report.providerUnavailable, decision.metrics["unavailable"] == nil, call.gated {
            // The merge refused an unavailable binding provider: still an outage the alarms must see.
            record.count("unavailable")
            record.providerUnavailable = true
        }
        record.decision = decision.label
        if decision.pooled { record.pool = "unproven" }
        return decision
    }

    /// Layer 2: one unit of the subject's allowance for today, by its tier (a device ID), the route's
    /// allowance (a user) or the unproven pool's (`pooled`). A store failure fails closed.
    func meterAllowance(
        _ call: CallContext,
        pooled: Bool,
        record: inout DecisionRecord
    ) async -> Step<AllowanceReservation> {
        do {
            let today = allowances.day(at: call.now)
            let profile: DeviceProfile
            if let known = call.report.profile {
                profile = known
            } else {
                profile = try await profiles.profile(subject: call.subject, today: today)
            }
            // An operator's block (`attestgate device block`) is on the rows this call already read.
            if profile.blocked != nil || call.report.keyBlocked {
                record.count("device_blocked")
                record.decision = "device_blocked"
                record.blocked = call.report.keyBlocked ? "key" : "device"
                return .answer(.refused(.deviceBlocked))
            }
            var policy = call.route.allowance
            if pooled, let unproven = call.route.unproven {
                // Nothing proved which device this is: the pool's allowance, whatever a tier would say.
                policy = unproven
            } else if case .device(let deviceID) = call.subject {
                let tier = try await deviceTier(
                    call.request,
                    profile: profile,
                    report: call.report,
                    deviceID: deviceID,
                    today: today,
                    now: call.now,
                    record: &record
                )
                policy = call.route.allowance(for: tier)
            }
            switch try await allowances.reserve(
                subject: call.subject,
                feature: call.route.feature,
                policy: policy,
                firstSeen: profile.firstSeen,
                now: call.now
            ) {
            case .reserved(let reservation):
                record.quotaRemaining = Int64(reservation.remaining)
                return .next(reservation)
            case .exhausted(let retryAfter):
                record.count("quota_exhausted")
                record.decision = "quota_exhausted"
                return .answer(
                    .refused(
                        .quotaExhausted,
                        headers: ["retry-after": String(retryAfter), WireHeader.quotaRemaining.key: "0"]
                    )
                )
            }
        } catch {
            call.logger.error(
                "allowance store failed",
                ["reason": .string(Self.slug(error)), "route": .string(call.route.feature)]
            )
            record.decision = "store_unavailable"
            return .answer(.refused(.unavailable))
        }
    }

    /// Layer 3: the environment's ceilings on unpaid calls (calls and money; the unproven pool's first when
    /// `pooled`). A refusal keeps the allowance unit; a store failure fails closed.
    func reserveCeiling(
        _ call: CallContext,
        pooled: Bool,
        quotaHeader: [String: String],
        record: inout DecisionRecord
    ) async -> Step<CeilingReservation?> {
        do {
            let worstCase = ceilingGuard.dailyCostLimitMicros > 0 && !call.request.paid ? call.bound.worstCaseMicros : 0
            guard let worstCase else {
                // A money ceiling with a call it cannot bound (configuration refuses this at start).
                record.decision = "unbounded_call"
                return .answer(.refused(.unavailable, headers: quotaHeader))
            }
            switch try await ceilingGuard.reserve(
                paid: call.request.paid,
                worstCaseMicros: worstCase,
                pooled: pooled,
                now: call.now
            ) {
            case .notMetered:
                return .next(nil)
            case .reserved(let reservation, let warningClaimed, let costWarningClaimed):
                record.count("budget_used")
                if ceilingGuard.dailyCostLimitMicros > 0 { record.costReservedMicros = reservation.costMicros }
                record.noteCeiling(
                    reservation,
                    callLimit: ceilingGuard.callLimit(reservation),
                    costLimit: ceilingGuard.costLimit(reservation)
                )
                if warningClaimed {
                    record.count("budget_warning")
                    call.logger.warning(
                        "ai call ceiling at 80 percent",
                        ["used": .int(Int64(reservation.used)), "limit": .int(ceilingGuard.callLimit(reservation))]
                    )
                }
                if costWarningClaimed {
                    // The same metric (and alarm) as the call ceiling's warning; the field says which.
                    record.count("budget_warning")
                    record.costWarning = true
                    call.logger.warning(
                        "ai cost ceiling at 80 percent",
                        [
                            "usedMicros": .int(reservation.costUsed),
                            "limitMicros": .int(ceilingGuard.costLimit(reservation)),
                        ]
                    )
                }
                return .next(reservation)
            case .exhausted(let retryAfter, let which):
                record.count("budget_exhausted")
                record.decision = "budget_exhausted"
                record.ceiling = which
                var headers = quotaHeader
                headers["retry-after"] = String(retryAfter)
                return .answer(.refused(.dailyBudgetExhausted, headers: headers))
            }
        } catch {
            call.logger.error("ceiling store failed", ["reason": .string(Self.slug(error))])
            record.decision = "store_unavailable"
            return .answer(.refused(.unavailable, headers: quotaHeader))
        }
    }

    /// The provider call, within the route's limit and never past what the invocation has left; with too
    /// little time it is not made, so nothing can have been billed.
    func callProvider(_ call: CallContext) async -> UpstreamResult {
        let left = call.deadline.remaining - deadlineMargin
        let timeout = call.route.upstreamTimeout.map { min($0, left) } ?? left
        guard timeout >= Self.minimumUpstreamTime else {
            return .failed(.notSent, reason: GateReason.upstreamNoTimeLeft.slug)
        }
        return await upstream.call(route: call.route, body: call.bound.body, timeout: timeout)
    }

    /// After the provider: give both units back when it provably did not bill (the route's `release`),
    /// pass a stream on (settled when it ends), or settle the answer's usage and pass it on.
    func finish(
        _ call: CallContext,
        result: UpstreamResult,
        allowance: AllowanceReservation,
        ceiling: CeilingReservation?,
        record: inout DecisionRecord
    ) async -> GateResponse {
        let route = call.route
        let verdict = route.release.verdict(result, statuses: route.releaseStatuses)
        record.upstream = verdict.label
        switch result {
        case .answered(let status, _, _): record.upstreamStatus = Int64(status)
        case .failed(_, let reason): record.upstreamReason = reason
        case .streaming(let status, _, _): record.upstreamStatus = Int64(status)
        }
        if verdict.release { await release(allowance: allowance, ceiling: ceiling, logger: call.logger) }
        var headers = [WireHeader.quotaRemaining.key: String(allowance.remaining + (verdict.release ? 1 : 0))]
        if case .streaming(let status, let contentType, let stream) = result {
            // The provider is streaming: both units stay spent; the money reservation settles to the final
            // usage when the stream ends cleanly (a cut, a limit or a stream without usage keeps it).
            record.stream = true
            headers["content-type"] = Self.passedOn(contentType) ?? "text/event-stream"
            let metered = meteredStream(
                stream,
                ceiling: ceiling,
                bound: call.bound,
                route: route,
                model: record.model,
                now: call.now,
                logger: call.logger
            )
            return GateResponse(status: status, headers: headers, body: [], stream: metered)
        }
        guard verdict.passOn, case .answered(let status, let contentType, let body) = result else {
            if case .answered(let status, _, _) = result, Self.requestRefusedStatuses.contains(status) {
                // The provider refused the request itself (its shape, its size): the client's to fix.
                record.decision = "upstream_invalid_request"
                return .refused(status == 413 ? .requestTooLarge : .invalidRequest, headers: headers)
            }
            record.decision = "upstream_unavailable"
            return .refused(verdict.timedOut ? .upstreamTimedOut : .upstreamUnavailable, headers: headers)
        }
        if let contentType = Self.passedOn(contentType) { headers["content-type"] = contentType }
        await settle(ceiling, bound: call.bound, route: route, answer: body, record: &record, logger: call.logger)
        return GateResponse(status: status, headers: headers, body: body)
    }

    /// Provider statuses that refuse the request itself, answered as our `400 invalid_request` (`413` as
    /// `request_too_large`); any other refusal (a key, a quota, an outage) is `502 upstream_unavailable`.
    static let requestRefusedStatuses: Set<Int> = [400, 404, 409, 413, 415, 422]
}
