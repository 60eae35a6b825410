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
        "quota_exhausted", "unproven",
    ]
    package static let dimensionSets = [["environment"], ["environment", "route", "mode"]]

    package var environment: String
    package var route: String
    package var mode: GateMode
    package var metrics: [String: Int] = [:]
    /// Other fields (decision, outcome, reason slug, proof kind, status, store request counts, …).
    package var fields: [String: JSONValue] = [:]

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

    /// The complete log object at `timestampMillis`.
    package func object(timestampMillis: Int64) -> [String: JSONValue] {
        // Metric keys come only from `metrics`; a field may never stand in for one.
        var object = fields.filter { !Self.metricNames.contains($0.key) }
        let names = Self.metricNames.filter { metrics[$0] != nil }
        object["_aws"] = .object([
            "Timestamp": .int(timestampMillis),
            "CloudWatchMetrics": .array([
                .object([
                    "Namespace": .string(Self.namespace),
                    "Dimensions": .array(Self.dimensionSets.map { .array($0.map(JSONValue.string)) }),
                    "Metrics": .array(names.map { .object(["Name": .string($0), "Unit": .string("Count")]) }),
                ])
            ]),
        ])
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
