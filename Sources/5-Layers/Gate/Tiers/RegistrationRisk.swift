package import AppAttest
package import AttestCore
package import FoundationEssentials

/// App Attest's fraud-risk metric at key registration (the receipt exchange, docs/appattest.md).
package protocol RegistrationRisk: Sendable {
    /// `RISK_METRIC_MAX`: a metric above it flags the device.
    var metricMax: Int { get }

    /// The risk signal for a registration whose key is bound. Never throws: a failure is `.unavailable`.
    /// Called concurrently with the mark read, within `deadline`.
    func riskAtRegistration(
        deviceID: String,
        registration: VerifiedRegistration,
        binding: KeyBinding,
        now: Date,
        deadline: Deadline
    ) async -> RiskSignal
}

/// No fraud-risk metric is asked (the receipt exchange is not configured): neutral for the tier.
package struct NoRegistrationRisk: RegistrationRisk {
    package let metricMax = 5
    package init() {}

    package func riskAtRegistration(
        deviceID: String,
        registration: VerifiedRegistration,
        binding: KeyBinding,
        now: Date,
        deadline: Deadline
    ) async -> RiskSignal { .notAsked }
}
