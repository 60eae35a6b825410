package import AttestCore

/// The one log line written per metered call: the decision plus its CloudWatch Embedded Metric Format
/// block (namespace `AttestGate`, dimension sets `[environment]` and `[environment, route, mode]`).
///
/// Metric names and dimension values come only from this type and the route configuration: `route` is
/// the route's feature name, never the client's path, and client-controlled values appear only as JSON
/// string values under fixed keys, so a request cannot add, remove or forge a metric.
package struct DecisionRecord: Sendable {
    package static let namespace = "AttestGate"
    package static let loggerName = "attestgate.decision"
    /// Every metric the product emits; the alarms in `infra/` use only these.
    package static let metricNames = [
        "attestation_check", "would_block", "block", "unavailable", "budget_used", "budget_warning", "budget_exhausted",
        "quota_exhausted", "unproven", "device_blocked", "debug_token",
    ]
    package static let dimensionSets = [["environment"], ["environment", "route", "mode"]]
    /// The money and token metrics of a call with a known model, by environment, route and model: the worst
    /// case reserved and the cost settled (micro-dollars, unit `None`), the tokens reported (`Count`). Their
    /// values are the fields of the same names; `model` is a value of the route's `models` or `other`, so a
    /// client cannot add a dimension value.
    package static let spendMetrics: [(name: String, unit: String)] = [
        ("costReservedMicros", "None"), ("costMicros", "None"), ("inputTokens", "Count"), ("outputTokens", "Count"),
    ]
    package static let spendDimensions = ["environment", "route", "model"]
    /// The day's ceiling as a reservation saw it, by environment (the ceiling is the environment's): the use
    /// of each limit as a fraction (raised limits when raised) and the micro-dollars reserved but not settled.
    package static let ceilingMetrics: [(name: String, unit: String)] = [
        ("ceilingCallUse", "None"), ("ceilingCostUse", "None"), ("ceilingDriftMicros", "None"),
    ]

    package var environment: String
    package var route: String
    package var mode: GateMode
    package var metrics: [String: Int] = [:]

    // The decision line's fields (docs/operations.md, "The decision line and the reason slugs"), each a
    // property so a field cannot be misspelled; nil fields are left out of the line.

    /// What the line is about when it is not a metered call (`key_registration`).
    package var event: String?
    /// What the gate did: `pass`, `would_block`, `block`, `unproven`, `skipped`, or the refusal's label.
    package var decision: String?
    /// The subject, as `Subject.logSuffix` (never a whole device ID or `sub`).
    package var device: String?
    /// Layer 1: the proof kind and its outcome, and the bounded reason slug of a refusal or failure.
    package var proof: String?
    package var outcome: String?
    package var reason: String?
    /// `unproven` when the call was served from the route's unproven pool.
    package var pool: String?
    /// The merge refused an unavailable binding provider.
    package var providerUnavailable: Bool?
    /// What an operator's block matched: `device` (the device ID) or `key` (its App Attest key).
    package var blocked: String?
    /// The requested model on a route with a known dialect: one of the route's `models`, or `other` when the
    /// route lists none (the money metrics' `model` dimension: never a value the client made up).
    package var model: String?
    /// Layer 2: the device tier and why, and what is left of the allowance.
    package var tier: String?
    package var tierReason: String?
    package var quotaRemaining: Int64?
    /// Layer 3: the worst case reserved, which ceiling refused, the day's warning claimed for money.
    package var costReservedMicros: Int64?
    package var ceiling: String?
    package var costWarning: Bool?
    /// The day's ceiling after this call's reservation (`ceilingMetrics`), and an operator's raise in force
    /// (`"<calls>/<micros>"`, `attestgate ceiling raise`).
    package var ceilingCallUse: Double?
    package var ceilingCostUse: Double?
    package var ceilingDriftMicros: Int64?
    package var ceilingRaise: String?
    /// The provider call: its verdict label, status or failure reason, and whether it streamed.
    package var upstream: String?
    package var upstreamStatus: Int64?
    package var upstreamReason: String?
    package var stream: Bool?
    /// The reported usage (`read` or `missing`), its tokens and its cost; a cost above the reservation.
    package var usage: String?
    package var inputTokens: Int64?
    package var outputTokens: Int64?
    package var costMicros: Int64?
    package var costOverReservation: Bool?
    /// A class of tokens in the usage that neither the route nor the dialect prices (`audio_output`, …): the
    /// call kept its whole reservation.
    package var usageUnpriced: String?
    /// The store's share of the call: requests, of them one after another, time waited, contention retries.
    package var ddbRequests: Int64?
    package var ddbSequential: Int64?
    package var ddbWaitMicros: Int64?
    package var storeRetries: Int64?
    /// The HTTP status answered.
    package var status: Int64?

    package init(environment: String, route: String, mode: GateMode) {
        self.environment = environment
        self.route = route
        self.mode = mode
    }

    /// Adds `count` to metric `name`. Names outside `metricNames` are a programming error.
    package mutating func count(_ name: String, _ count: Int = 1) {
        precondition(Self.metricNames.contains(name), "unknown metric \(name)")
        metrics[name, default: 0] += count
    }

    /// The fields that are set, under their names.
    var fields: [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        func put(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
        func put(_ key: String, _ value: Int64?) { if let value { fields[key] = .int(value) } }
        func put(_ key: String, _ value: Bool?) { if let value { fields[key] = .bool(value) } }
        func put(_ key: String, _ value: Double?) { if let value { fields[key] = .double(value) } }
        put("event", event)
        put("decision", decision)
        put("device", device)
        put("proof", proof)
        put("outcome", outcome)
        put("reason", reason)
        put("pool", pool)
        put("providerUnavailable", providerUnavailable)
        put("blocked", blocked)
        put("model", model)
        put("tier", tier)
        put("tierReason", tierReason)
        put("quotaRemaining", quotaRemaining)
        put("costReservedMicros", costReservedMicros)
        put("ceiling", ceiling)
        put("costWarning", costWarning)
        put("ceilingCallUse", ceilingCallUse)
        put("ceilingCostUse", ceilingCostUse)
        put("ceilingDriftMicros", ceilingDriftMicros)
        put("ceilingRaise", ceilingRaise)
        put("upstream", upstream)
        put("upstreamStatus", upstreamStatus)
        put("upstreamReason", upstreamReason)
        put("stream", stream)
        put("usage", usage)
        put("inputTokens", inputTokens)
        put("outputTokens", outputTokens)
        put("costMicros", costMicros)
        put("costOverReservation", costOverReservation)
        put("usageUnpriced", usageUnpriced)
        put("ddbRequests", ddbRequests)
        put("ddbSequential", ddbSequential)
        put("ddbWaitMicros", ddbWaitMicros)
        put("storeRetries", storeRetries)
        put("status", status)
        return fields
    }

    /// The complete log object at `timestampMillis`.
    package func object(timestampMillis: Int64) -> [String: JSONValue] {
        // Metric keys come only from `metrics`, dimensions only from the route's configuration.
        var object = fields
        let names = Self.metricNames.filter { metrics[$0] != nil }
        var directives: [JSONValue] = [
            .object([
                "Namespace": .string(Self.namespace),
                "Dimensions": .array(Self.dimensionSets.map { .array($0.map(JSONValue.string)) }),
                "Metrics": .array(names.map { .object(["Name": .string($0), "Unit": .string("Count")]) }),
            ])
        ]
        let spend = Self.spendMetrics.filter { object[$0.name] != nil }
        if model != nil, !spend.isEmpty {
            directives.append(
                .object([
                    "Namespace": .string(Self.namespace),
                    "Dimensions": .array([.array(Self.spendDimensions.map(JSONValue.string))]),
                    "Metrics": .array(spend.map { .object(["Name": .string($0.name), "Unit": .string($0.unit)]) }),
                ])
            )
        }
        let ceiling = Self.ceilingMetrics.filter { object[$0.name] != nil }
        if !ceiling.isEmpty {
            directives.append(
                .object([
                    "Namespace": .string(Self.namespace),
                    "Dimensions": .array([.array([.string("environment")])]),
                    "Metrics": .array(ceiling.map { .object(["Name": .string($0.name), "Unit": .string($0.unit)]) }),
                ])
            )
        }
        object["_aws"] = .object(["Timestamp": .int(timestampMillis), "CloudWatchMetrics": .array(directives)])
        for name in names { object[name] = .int(Int64(metrics[name]!)) }
        object["environment"] = .string(environment)
        object["route"] = .string(route)
        object["mode"] = .string(mode.rawValue)
        object["logger"] = .string(Self.loggerName)
        return object
    }

    /// Writes the record as one info line through `logger`, whatever its level (`Logger.record`): the
    /// alarms read these lines, so no `LOG_LEVEL` may mute them.
    package func emit(to logger: Logger, timestampMillis: Int64) {
        logger.record("decision", object(timestampMillis: timestampMillis))
    }
}
